import { testEntity } from '../../lib/governance/evaluation/evaluation-service';
import type { policyEndpoints } from '../../lib/governance/policies/endpoints';
import type { EntityInput, EntityKind } from '../../lib/governance/policies/entity';
import {
  createEntity,
  deleteEntity,
  listEntities,
  listVersions,
  moveEntity,
  notifyCreationFailed,
  publishEntity,
  readEntity,
  updateEntity,
} from '../../lib/governance/policies/entity-service';
import { httpHandler } from '../../lib/http/handler';
import { startedResponse } from './started-response';

/** The handlers of one kind of entity (policies.ts and metrics.ts export them). */
export function entityHandlers(kind: EntityKind, endpoints: typeof policyEndpoints) {
  return {
    create: httpHandler(
      endpoints.create,
      async ({ body, principal }) => ({ status: 201, body: await createEntity(kind, body as EntityInput, principal.subject) }),
      {
        onRejected: (problem, body, principal) =>
          notifyCreationFailed(kind, body, { message: problem.message, errors: problem.extra.errors }, principal.subject),
      },
    ),
    list: httpHandler(endpoints.list, async ({ query }) => {
      const { limit, offset, ...filters } = query;
      return { status: 200, body: await listEntities(kind, filters, { limit, offset }) };
    }),
    read: httpHandler(endpoints.read, async ({ params, query }) => ({ status: 200, body: await readEntity(kind, params.id, query.version) })),
    versions: httpHandler(endpoints.versions, async ({ params }) => ({ status: 200, body: { data: await listVersions(kind, params.id) } })),
    update: httpHandler(endpoints.update, async ({ params, body, principal }) => {
      const { entity, newVersion } = await updateEntity(kind, params.id, body as EntityInput, principal.subject);
      return { status: newVersion ? 201 : 200, body: entity };
    }),
    remove: httpHandler(endpoints.remove, async ({ params }) => {
      await deleteEntity(kind, params.id);
      return { status: 204 };
    }),
    publish: httpHandler(endpoints.publish, async ({ params, principal }) => ({ status: 200, body: await publishEntity(kind, params.id, principal.subject) })),
    move: httpHandler(endpoints.move, async ({ params, body, principal }) => ({
      status: 200,
      body: await moveEntity(kind, params.id, body.status, principal.subject, body.version),
    })),
    test: httpHandler(endpoints.test, async ({ params, query, body, principal, headers }) =>
      startedResponse(headers, (waitMs) => testEntity(kind, params.id, body, principal.subject, waitMs, query.version)),
    ),
  };
}
