import { sql } from 'drizzle-orm';

import type { Transaction } from '#lib/db/transaction';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { notificationOf } from '#lib/platform/notifications';

import type { GovernanceContext } from '../context';
import { EntityRepository } from '../policies/entity-repository';
import type { ReportRow } from './report-repository';

/** The resources one notice lists at most (the count says how many there are). */
const LISTED = 100;

interface OwnerRow {
  owner: string;
  count: number;
  resources: { environment: string; resourceId: string; errors: string[] }[];
}

/**
 * A publish ended: the resources whose result fails where the newest result of the version
 * enforced before passed are newly failing. Each owner of some (their type's resourceOwnerField)
 * gets one notification listing theirs, never one per resource, written to the outbox in the
 * transaction that ends the report. True when something was written.
 */
export async function announceNewlyFailing(ctx: GovernanceContext, tx: Transaction, report: ReportRow): Promise<boolean> {
  if (report.cause !== 'publish' || report.request.mode !== 'queued' || report.request.baselineVersion === undefined) return false;
  const { database, settings } = ctx;
  if (!settings.notification.enabled) return false;
  const [key] = report.request.entities;
  const results = database.tables.evaluationResults;
  const owners = (await tx.execute(sql`
    select c.resource_owner as owner, count(*)::int as count,
      (json_agg(json_build_object('environment', c.environment, 'resourceId', c.resource_id, 'errors', coalesce(c.result -> 'errors', '[]'::jsonb))
        order by c.environment, c.resource_id))::jsonb as resources
    from ${results} c
    join lateral (
      select r.outcome from ${results} r
      where r.recorded and r.entity_id = c.entity_id and r.resource_id = c.resource_id and r.environment = c.environment
        and r.entity_version = ${report.request.baselineVersion} and r.report_id is distinct from c.report_id
      order by r.id desc limit 1
    ) b on b.outcome in ('ok', 'waived')
    where c.report_id = ${report.id}::uuid and c.outcome not in ('ok', 'waived') and c.resource_owner is not null
    group by c.resource_owner order by c.resource_owner`)) as unknown as OwnerRow[];
  if (owners.length === 0) return false;
  const [entity] = await new EntityRepository(database).findVersions([key], tx);
  const outbox = new OutboxRepository(database);
  for (const { owner, count, resources } of owners) {
    const what = `${entity?.kind ?? 'policy'} ${entity ? `"${entity.name}" ` : ''}version ${key.version}`;
    const notification = notificationOf(
      settings,
      'resource-newly-failing-event',
      { id: key.id, name: entity?.name ?? null, type: entity?.kind ?? 'policy' },
      `The ${what}, just published, newly fails ${count} resource${count === 1 ? '' : 's'} of ${owner}`,
    );
    if (notification)
      await outbox.enqueue(
        'notification',
        { ...notification, owner, newlyFailing: count, resources: resources.slice(0, LISTED), reportId: report.id, version: key.version },
        tx,
      );
  }
  return true;
}
