import type { Database } from '#lib/db/client';
import { OutboxRepository } from '#lib/outbox/outbox-repository';

/** What an operator reads at GET /health?detail=true: the evaluation queue, the outbox and the last cron run, with their ages. */
export interface HealthDetail {
  queue: { queued: number; running: number; oldestQueuedAgeSeconds: number | null };
  outbox: { pending: number; oldestAgeSeconds: number | null };
  cron: { schedules: number; lastRunAt: string | null; lastRunAgeSeconds: number | null };
}

const seconds = (value: number | null) => (value === null ? null : Math.max(0, Math.round(value)));

/** Three cheap aggregates over indexed tables, each read once. */
export async function healthDetail(database: Database): Promise<HealthDetail> {
  const schema = `"${database.schemaName}"`;
  const [[tasks], outbox, [cron]] = await Promise.all([
    database.sql.unsafe<{ queued: number; running: number; oldest: number | null }[]>(
      `select count(*) filter (where status = 'queued')::int as queued, count(*) filter (where status = 'running')::int as running,
         extract(epoch from now() - min(coalesce(sent_at, created_at)) filter (where status = 'queued'))::float8 as oldest
       from ${schema}.evaluation_tasks where status in ('queued', 'running')`,
    ),
    new OutboxRepository(database).backlog(),
    database.sql.unsafe<{ schedules: number; lastRunAt: Date | null }[]>(
      `select count(*)::int as schedules, max(last_run_at) as "lastRunAt" from ${schema}.cron_schedules`,
    ),
  ]);
  return {
    queue: { queued: tasks.queued, running: tasks.running, oldestQueuedAgeSeconds: seconds(tasks.oldest) },
    outbox: { pending: outbox.pending, oldestAgeSeconds: outbox.pending === 0 ? null : seconds(outbox.oldestAgeSeconds) },
    cron: {
      schedules: cron.schedules,
      lastRunAt: cron.lastRunAt?.toISOString() ?? null,
      lastRunAgeSeconds: cron.lastRunAt ? seconds((Date.now() - cron.lastRunAt.getTime()) / 1000) : null,
    },
  };
}
