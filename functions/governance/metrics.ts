import { metricEndpoints } from '#lib/governance/policies/endpoints';
import { entityHandlers } from '#lib/governance/policies/entity-handlers';

export const {
  create: createMetric,
  list: listMetric,
  get: getMetric,
  listVersionsOf: listVersionsOfMetric,
  update: updateMetric,
  delete: deleteMetric,
  publish: publishMetric,
  changeStatusOf: changeStatusOfMetric,
  test: testMetric,
  impact: impactOfMetric,
  scheduleRollout: scheduleRolloutOfMetric,
  getRollout: getRolloutOfMetric,
  cancelRollout: cancelRolloutOfMetric,
} = entityHandlers('metric', metricEndpoints);
