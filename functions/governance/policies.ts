import * as evaluation from '#lib/governance/evaluation/evaluation-service';
import { policyEndpoints, recordPassiveResultEndpoint } from '#lib/governance/policies/endpoints';
import { entityHandlers } from '#lib/governance/policies/entity-handlers';
import { httpHandler } from '#lib/http/handler';

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
} = entityHandlers('policy', policyEndpoints);

export const recordPassiveResult = httpHandler(recordPassiveResultEndpoint, async ({ params, body }) => ({
  status: 201,
  body: await evaluation.recordPassiveResult(params.id, body),
}));
