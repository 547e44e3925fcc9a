import { speaksFor } from '#lib/authorization/resource-voice';
import { ForbiddenError } from '#lib/errors/domain-errors';
import * as evaluation from '#lib/governance/evaluation/evaluation-service';
import { governanceHandler } from '#lib/governance/governance-handler';
import { policyEndpoints, recordPassiveResultEndpoint } from '#lib/governance/policies/endpoints';
import { entityHandlers } from '#lib/governance/policies/entity-handlers';
import { readEntityRow } from '#lib/governance/policies/entity-reading';

export const {
  create: createPolicy,
  list: listPolicy,
  get: getPolicy,
  listVersionsOf: listVersionsOfPolicy,
  update: updatePolicy,
  delete: deletePolicy,
  publish: publishPolicy,
  changeStatusOf: changeStatusOfPolicy,
  test: testPolicy,
  impact: impactOfPolicy,
  scheduleRollout: scheduleRolloutOfPolicy,
  getRollout: getRolloutOfPolicy,
  cancelRollout: cancelRolloutOfPolicy,
} = entityHandlers('policy', policyEndpoints);

export const recordPassiveResult = governanceHandler(recordPassiveResultEndpoint, async ({ params, body, authorize, principal }, ctx) => {
  const scope = { resourceType: (await readEntityRow(ctx, 'policy', params.id)).resourceType, environment: body.environment };
  authorize(scope);
  // A passive result is nothing but the resource's state: only those who may speak for it record one.
  if (!speaksFor(principal, scope)) {
    throw new ForbiddenError(
      `Recording a result needs evaluations:run in a binding limited to resource type ${scope.resourceType} or environment ${scope.environment}, an admin, or the platform's service account (docs/authorization.md, "Who may speak for a resource")`,
      { permission: 'evaluations:run', scope },
    );
  }
  return { status: 201, body: await evaluation.recordPassiveResult(ctx, params.id, body) };
});
