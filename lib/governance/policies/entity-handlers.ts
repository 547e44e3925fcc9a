import * as approvals from '../approvals/approval-service';
import { governance } from '../composition';
import { testEntity } from '../evaluation/evaluation-service';
import { startedResponse } from '../evaluation/started-response';
import { governanceHandler } from '../governance-handler';
import { impactStartedResponse } from '../impact/impact-handlers';
import { startImpact } from '../impact/impact-service';
import { cancelRollout, getRollout, rolloutTarget, scheduleRollout } from '../rollouts/rollout-service';
import type { policyEndpoints } from './endpoints';
import type { EntityInput, EntityKind } from './entity';
import { getEntity, listEntities, listVersionsOfEntity, readEntityRow, scopeOf, scopesOfMove } from './entity-reading';
import { changeStatusOfEntity, createEntity, deleteEntity, notifyCreationFailed, publishEntity, updateEntity } from './entity-service';

/** The handlers of one kind of entity (policies.ts and metrics.ts export them). */
export function entityHandlers(kind: EntityKind, endpoints: typeof policyEndpoints) {
  return {
    create: governanceHandler(
      endpoints.create,
      async ({ body, principal, authorize }, ctx) => {
        authorize(scopeOf(body as EntityInput));
        return { status: 201, body: await createEntity(ctx, kind, body as EntityInput, principal.subject) };
      },
      {
        onRejected: async (problem, body, principal) =>
          notifyCreationFailed(await governance(), kind, body, { message: problem.message, errors: problem.extra.errors }, principal.subject),
      },
    ),
    list: governanceHandler(endpoints.list, async ({ query }, ctx) => {
      const { limit, offset, ...filters } = query;
      return { status: 200, body: await listEntities(ctx, kind, filters, { limit, offset }) };
    }),
    get: governanceHandler(endpoints.get, async ({ params, query }, ctx) => ({ status: 200, body: await getEntity(ctx, kind, params.id, query.version) })),
    listVersionsOf: governanceHandler(endpoints.listVersionsOf, async ({ params }, ctx) => ({
      status: 200,
      body: { data: await listVersionsOfEntity(ctx, kind, params.id) },
    })),
    update: governanceHandler(endpoints.update, async ({ params, body, principal, authorize }, ctx) => {
      // Both where it is and where the edit would put it.
      authorize(scopeOf(await readEntityRow(ctx, kind, params.id)));
      authorize(scopeOf(body as EntityInput));
      const { entity, newVersion } = await updateEntity(ctx, kind, params.id, body as EntityInput, principal.subject);
      return { status: newVersion ? 201 : 200, body: entity };
    }),
    delete: governanceHandler(endpoints.delete, async ({ params, authorize }, ctx) => {
      authorize(scopeOf(await readEntityRow(ctx, kind, params.id)));
      await deleteEntity(ctx, kind, params.id);
      return { status: 204 };
    }),
    publish: governanceHandler(endpoints.publish, async ({ params, principal, authorize }, ctx) => {
      for (const scope of await scopesOfMove(ctx, kind, params.id, 'enabled')) authorize(scope);
      if (await approvals.fourEyesOn(ctx)) return approvals.requestedAnswer(await approvals.requestPublish(ctx, kind, params.id, principal.subject));
      return { status: 200, body: await publishEntity(ctx, kind, params.id, principal.subject) };
    }),
    changeStatusOf: governanceHandler(endpoints.changeStatusOf, async ({ params, body, principal, authorize }, ctx) => {
      for (const scope of await scopesOfMove(ctx, kind, params.id, body.status, body.version)) authorize(scope);
      const move = { to: body.status, version: body.version };
      if (await approvals.fourEyesOn(ctx)) return approvals.requestedAnswer(await approvals.requestStatusMove(ctx, kind, params.id, move, principal.subject));
      return { status: 200, body: await changeStatusOfEntity(ctx, kind, params.id, { ...move, subject: principal.subject }) };
    }),
    // Its audit records are written in its transaction, or ahead before a run that is not one.
    test: governanceHandler(
      endpoints.test,
      async ({ params, query, body, principal, headers, authorize, signal, auditIn, recordAhead }, ctx) => {
        authorize(scopeOf(await readEntityRow(ctx, kind, params.id, query.version)));
        return startedResponse(headers, (waitMs, answerOf) =>
          testEntity(ctx, kind, params.id, body, {
            subject: principal.subject,
            waitMs,
            version: query.version,
            signal,
            audit: { within: (tx, reportId) => auditIn(tx, answerOf(reportId)), ahead: recordAhead },
          }),
        );
      },
      { ownAuditRecords: true },
    ),
    scheduleRollout: governanceHandler(endpoints.scheduleRollout, async ({ params, body, principal, authorize }, ctx) => {
      // A rollout moves the version in grace to enabled at its date.
      const target = await rolloutTarget(ctx, kind, params.id, body);
      for (const scope of await scopesOfMove(ctx, kind, params.id, 'enabled', target.version)) authorize(scope);
      if (await approvals.fourEyesOn(ctx)) return approvals.requestedAnswer(await approvals.requestRollout(ctx, kind, params.id, body, principal.subject));
      return { status: 201, body: await scheduleRollout(ctx, kind, params.id, body, principal.subject) };
    }),
    getRollout: governanceHandler(endpoints.getRollout, async ({ params }, ctx) => ({ status: 200, body: await getRollout(ctx, kind, params.id) })),
    cancelRollout: governanceHandler(endpoints.cancelRollout, async ({ params, principal, authorize }, ctx) => {
      authorize(scopeOf(await readEntityRow(ctx, kind, params.id)));
      return { status: 200, body: await cancelRollout(ctx, kind, params.id, principal.subject) };
    }),
    impact: governanceHandler(endpoints.impact, async ({ params, body, principal, headers, authorize, signal }, ctx) => {
      authorize(scopeOf(await readEntityRow(ctx, kind, params.id, body.version)));
      return impactStartedResponse(ctx, headers, await startImpact(ctx, kind, params.id, body, principal.subject), signal);
    }),
  };
}
