// Writing policies and metrics and moving them through their lifecycle: versions, tests, publish, status, impact, rollouts, passive results.
import { routedHandler } from '#lib/service/routed-handler';

import * as metrics from '../governance/metrics';
import * as policies from '../governance/policies';

export const handler = routedHandler(
  policies.createPolicy,
  policies.listPolicy,
  policies.getPolicy,
  policies.listVersionsOfPolicy,
  policies.updatePolicy,
  policies.deletePolicy,
  policies.publishPolicy,
  policies.changeStatusOfPolicy,
  policies.testPolicy,
  policies.impactOfPolicy,
  policies.scheduleRolloutOfPolicy,
  policies.getRolloutOfPolicy,
  policies.cancelRolloutOfPolicy,
  policies.recordPassiveResult,
  metrics.createMetric,
  metrics.listMetric,
  metrics.getMetric,
  metrics.listVersionsOfMetric,
  metrics.updateMetric,
  metrics.deleteMetric,
  metrics.publishMetric,
  metrics.changeStatusOfMetric,
  metrics.testMetric,
  metrics.impactOfMetric,
  metrics.scheduleRolloutOfMetric,
  metrics.getRolloutOfMetric,
  metrics.cancelRolloutOfMetric,
);
