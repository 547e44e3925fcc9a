import type { Database } from '#lib/db/client';
import { OutboxRepository } from '#lib/outbox/outbox-repository';

/** What an operator reads at GET /health?detail=true: the evaluation queue, the outbox, the audit chain's linking and the last cron run, with their ages. */
export interface HealthDetail {
  queue: { queued: number; running: number; oldestQueuedAgeSeconds: number | null };
  outbox: { pending: number; oldestAgeSeconds: number | null };
  auditChain: { unlinked: number; oldestUnlinkedAgeSeconds: number | null; linkWithinSeconds: number; lagging: boolean };
  cron: { schedules: number; lastRunAt: string | null; lastRunAgeSeconds: number | null };
}

const seconds = (value: number | null) => (value === null ? null : Math.max(0, Math.round(value)));

/** Four cheap aggregates over indexed tables, each read once; `linkWithinMs` is audit-chain.link-within. */
export async function healthDetail(database: Database, linkWithinMs: number): Promise<HealthDetail> {
  const schema = `"${database.schemaName}"`;
  const [[tasks], outbox, [chain], [cron]] = await Promise.all([
    database.sql.unsafe<{ queued: number; running: number; oldest: number | null }[]>(
      `select count(*) filter (where status = 'queued')::int as queued, count(*) filter (where status = 'running')::int as running,
         extract(epoch from now() - min(coalesce(sent_at, created_at)) filter (where status = 'queued'))::float8 as oldest
       from ${schema}.evaluation_tasks where status in ('queued', 'running')`,
    ),
    new OutboxRepository(database).backlog(),
    // A record waits from when it became due: its call answered (or its hold ran out); one retried after a failure, from its call.
    database.sql.unsafe<{ unlinked: number; oldest: number | null }[]>(
      `select count(*)::int as unlinked,
         extract(epoch from now() - min(case when attempts = 0 then next_attempt_at else created_at end))::float8 as oldest
       from ${schema}.outbox
       where topic = 'chain' and delivered_at is null and dead_at is null and (attempts > 0 or next_attempt_at <= now())`,
    ),
    database.sql.unsafe<{ schedules: number; lastRunAt: Date | null }[]>(
      `select count(*)::int as schedules, max(last_run_at) as "lastRunAt" from ${schema}.cron_schedules`,
    ),
  ]);
  return {
    queue: { queued: tasks.queued, running: tasks.running, oldestQueuedAgeSeconds: seconds(tasks.oldest) },
    outbox: { pending: outbox.pending, oldestAgeSeconds: outbox.pending === 0 ? null : seconds(outbox.oldestAgeSeconds) },
    auditChain: {
      unlinked: chain.unlinked,
      oldestUnlinkedAgeSeconds: seconds(chain.oldest),
      linkWithinSeconds: Math.round(linkWithinMs / 1000),
      lagging: chain.oldest !== null && chain.oldest * 1000 > linkWithinMs,
    },
    cron: {
      schedules: cron.schedules,
      lastRunAt: cron.lastRunAt?.toISOString() ?? null,
      lastRunAgeSeconds: cron.lastRunAt ? seconds((Date.now() - cron.lastRunAt.getTime()) / 1000) : null,
    },
  };
}
