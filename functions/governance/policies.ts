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

export const recordPassiveResult = governanceHandler(recordPassiveResultEndpoint, async ({ params, body, authorize }, ctx) => {
  authorize({ resourceType: (await readEntityRow(ctx, 'policy', params.id)).resourceType, environment: body.environment });
  return { status: 201, body: await evaluation.recordPassiveResult(ctx, params.id, body) };
});
