import type { Transaction } from '#lib/db/transaction';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { notificationOf } from '#lib/platform/notifications';

import type { GovernanceContext } from '../context';
import type { ReportRow } from '../evaluation/report-repository';
import { ResultRepository } from '../evaluation/result-repository';
import { EntityRepository } from '../policies/entity-repository';

/**
 * A scheduled run ended with resources that do not comply (any outcome but `ok`) or that could not
 * be evaluated (the report failed): the runtime-policy-failed event (events.enabled) and the
 * `failure-event` notification (notification.enabled) are written to the outbox in the
 * transaction that ends the report, so they are delivered without holding the run up, retried,
 * and never lost. True when something was written (the caller starts a delivery). Other runs: nothing.
 */
export async function announceRuntimeFailure(ctx: GovernanceContext, tx: Transaction, report: ReportRow): Promise<boolean> {
  if (report.cause !== 'schedule') return false;
  const { database, settings } = ctx;
  const { failed, total } = await new ResultRepository(database).countsOfReport(report.id, tx);
  if (report.status !== 'failed' && failed === 0) return false;
  const [key] = report.request.entities;
  const outbox = new OutboxRepository(database);
  let announced = false;
  if (settings.events.enabled) {
    const payload = { policyId: key.id, version: key.version, environment: report.environment, reportId: report.id, failed, total };
    await outbox.enqueue('event', { topic: settings.events.runtimePolicyFailedTopic as string, payload }, tx);
    announced = true;
  }
  const [entity] = await new EntityRepository(database).findVersions([key], tx);
  const name = entity?.name ?? null;
  const why =
    report.status === 'failed'
      ? `could not be evaluated everywhere (${report.error ?? 'see the report'})`
      : `found ${failed} of ${total} evaluations not compliant`;
  const notification = notificationOf(
    settings,
    'failure-event',
    { id: key.id, name, type: entity?.kind ?? 'policy' },
    `The scheduled run of ${entity?.kind ?? 'policy'} ${name ? `"${name}" ` : ''}version ${key.version} ${why}; report ${report.id}`,
  );
  if (notification) {
    await outbox.enqueue('notification', { ...notification, reportId: report.id }, tx);
    announced = true;
  }
  return announced;
}
