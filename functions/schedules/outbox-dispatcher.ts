import type { Context } from 'aws-lambda';

import { registerChainSender } from '#lib/audit/chain-sender';
import { getDatabase } from '#lib/db/shared-database';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { registerIndexSender } from '#lib/outbox/knowledge-changes';
import { dispatchOutbox, platformDelivery } from '#lib/outbox/outbox-dispatcher';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { functionHandler } from '#lib/service/function-handler';
import { getSettings } from '#lib/settings/shared-settings';

// The scheduled dispatcher delivers every topic: the platform's receivers and ours.
registerChainSender();
registerIndexSender();

/**
 * Every minute: delivers every outbox message that is due (audit records, notifications, events,
 * knowledge-index changes), retrying failed ones. It claims no new batch once fewer than one
 * delivery's worst time is left of the function's.
 */
export const handler = functionHandler(async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const delivery = platformDelivery(await getSettings());
  const until = context ? Date.now() + context.getRemainingTimeInMillis() - delivery.deliveryTimeoutMs : undefined;
  const database = await getDatabase();
  const counts = await dispatchOutbox(database, delivery, until);
  // What still waits once the run is over: the backlog alarms read these (docs/operations.md).
  const { pending, oldestAgeSeconds } = await new OutboxRepository(database).backlog();
  recordMetric('OutboxBacklog', MetricUnit.Count, pending);
  recordMetric('OutboxOldestAge', MetricUnit.Seconds, oldestAgeSeconds);
  return counts;
});
