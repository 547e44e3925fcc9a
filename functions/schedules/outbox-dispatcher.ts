import type { Context } from 'aws-lambda';

import { registerChainSender } from '#lib/audit/chain-sender';
import { checkpointWhenDue } from '#lib/audit/checkpoints';
import { getDatabase } from '#lib/db/shared-database';
import { logger } from '#lib/logging/logger';
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
 * Every minute: signs the audit chain when a checkpoint is due, then delivers every outbox message that is due (audit records, notifications, events,
 * knowledge-index changes), retrying failed ones. It claims no new batch once fewer than one
 * delivery's worst time is left of the function's.
 */
export const handler = functionHandler(async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const settings = await getSettings();
  const delivery = platformDelivery(settings);
  const until = context ? Date.now() + context.getRemainingTimeInMillis() - delivery.deliveryTimeoutMs : undefined;
  const database = await getDatabase();
  // The audit chain's head signed when due (audit-chain.checkpoint-interval); a failure is logged and waits for the next run.
  const checkpoint = await checkpointWhenDue({ database, settings }).catch((error: unknown) => {
    logger.error({ err: error }, 'could not sign the audit chain (a checkpoint); the next run tries again');
    return undefined;
  });
  const counts = await dispatchOutbox(database, delivery, until);
  // What still waits once the run is over: the backlog alarms read these (docs/operations.md).
  const { pending, oldestAgeSeconds } = await new OutboxRepository(database).backlog();
  recordMetric('OutboxBacklog', MetricUnit.Count, pending);
  recordMetric('OutboxOldestAge', MetricUnit.Seconds, oldestAgeSeconds);
  return { ...counts, checkpoint: checkpoint ? checkpoint.seq : null };
});
