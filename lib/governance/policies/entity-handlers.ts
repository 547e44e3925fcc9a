import type { Scope } from '#lib/authorization/access';
import { httpHandler } from '#lib/http/handler';

import * as approvals from '../approvals/approval-service';
import { testEntity } from '../evaluation/evaluation-service';
import { startedResponse } from '../evaluation/started-response';
import { impactStartedResponse } from '../impact/impact-handlers';
import { startImpact } from '../impact/impact-service';
import { cancelRollout, getRollout, scheduleRollout } from '../rollouts/rollout-service';
import type { policyEndpoints } from './endpoints';
import type { EntityInput, EntityKind } from './entity';
import { getEntity, listEntities, listVersionsOfEntity, readEntityRow } from './entity-reading';
import { changeStatusOfEntity, createEntity, deleteEntity, notifyCreationFailed, publishEntity, updateEntity } from './entity-service';

/** Where an entity acts: its resource type, in its environment (null: every one). */
const scopeOf = (entity: { resourceType: string; environment: string | null }): Scope => ({
  resourceType: entity.resourceType,
  environment: entity.environment,
});

/** The handlers of one kind of entity (policies.ts and metrics.ts export them). */
export function entityHandlers(kind: EntityKind, endpoints: typeof policyEndpoints) {
  return {
    create: httpHandler(
      endpoints.create,
      async ({ body, principal, authorize }) => {
        authorize(scopeOf(body as EntityInput));
        return { status: 201, body: await createEntity(kind, body as EntityInput, principal.subject) };
      },
      {
        onRejected: (problem, body, principal) =>
          notifyCreationFailed(kind, body, { message: problem.message, errors: problem.extra.errors }, principal.subject),
      },
    ),
    list: httpHandler(endpoints.list, async ({ query }) => {
      const { limit, offset, ...filters } = query;
      return { status: 200, body: await listEntities(kind, filters, { limit, offset }) };
    }),
    get: httpHandler(endpoints.get, async ({ params, query }) => ({ status: 200, body: await getEntity(kind, params.id, query.version) })),
    listVersionsOf: httpHandler(endpoints.listVersionsOf, async ({ params }) => ({ status: 200, body: { data: await listVersionsOfEntity(kind, params.id) } })),
    update: httpHandler(endpoints.update, async ({ params, body, principal, authorize }) => {
      // Both where it is and where the edit would put it.
      authorize(scopeOf(await readEntityRow(kind, params.id)));
      authorize(scopeOf(body as EntityInput));
      const { entity, newVersion } = await updateEntity(kind, params.id, body as EntityInput, principal.subject);
      return { status: newVersion ? 201 : 200, body: entity };
    }),
    delete: httpHandler(endpoints.delete, async ({ params, authorize }) => {
      authorize(scopeOf(await readEntityRow(kind, params.id)));
      await deleteEntity(kind, params.id);
      return { status: 204 };
    }),
    publish: httpHandler(endpoints.publish, async ({ params, principal, authorize }) => {
      authorize(scopeOf(await readEntityRow(kind, params.id)));
      if (await approvals.fourEyesOn()) return approvals.requestedAnswer(await approvals.requestPublish(kind, params.id, principal.subject));
      return { status: 200, body: await publishEntity(kind, params.id, principal.subject) };
    }),
    changeStatusOf: httpHandler(endpoints.changeStatusOf, async ({ params, body, principal, authorize }) => {
      authorize(scopeOf(await readEntityRow(kind, params.id, body.version)));
      const move = { to: body.status, version: body.version };
      if (await approvals.fourEyesOn()) return approvals.requestedAnswer(await approvals.requestStatusMove(kind, params.id, move, principal.subject));
      return { status: 200, body: await changeStatusOfEntity(kind, params.id, { ...move, subject: principal.subject }) };
    }),
    test: httpHandler(endpoints.test, async ({ params, query, body, principal, headers, authorize, signal }) => {
      authorize(scopeOf(await readEntityRow(kind, params.id, query.version)));
      return startedResponse(headers, (waitMs) => testEntity(kind, params.id, body, { subject: principal.subject, waitMs, version: query.version, signal }));
    }),
    scheduleRollout: httpHandler(endpoints.scheduleRollout, async ({ params, body, principal, authorize }) => {
      authorize(scopeOf(await readEntityRow(kind, params.id)));
      if (await approvals.fourEyesOn()) return approvals.requestedAnswer(await approvals.requestRollout(kind, params.id, body, principal.subject));
      return { status: 201, body: await scheduleRollout(kind, params.id, body, principal.subject) };
    }),
    getRollout: httpHandler(endpoints.getRollout, async ({ params }) => ({ status: 200, body: await getRollout(kind, params.id) })),
    cancelRollout: httpHandler(endpoints.cancelRollout, async ({ params, principal, authorize }) => {
      authorize(scopeOf(await readEntityRow(kind, params.id)));
      return { status: 200, body: await cancelRollout(kind, params.id, principal.subject) };
    }),
    impact: httpHandler(endpoints.impact, async ({ params, body, principal, headers, authorize, signal }) => {
      authorize(scopeOf(await readEntityRow(kind, params.id, body.version)));
      return impactStartedResponse(headers, await startImpact(kind, params.id, body, principal.subject), signal);
    }),
  };
}
