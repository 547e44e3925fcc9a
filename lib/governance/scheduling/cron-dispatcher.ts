import { inTransaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';

import type { GovernanceContext } from '../context';
import { environmentsOf, type QueuedEvaluation, recordQueuedEvaluation, sendTasks } from '../evaluation/queued-evaluation';
import { nextCronRun } from '../policies/cron-expression';
import { CronScheduleRepository } from './cron-schedule-repository';

/** Who the reports of scheduled runs are created by. */
const SCHEDULER_SUBJECT = 'cron-scheduler';

export interface Dispatched {
  /** The runs started: the entity and the report of its run. */
  started: { entityId: string; reportId: string }[];
  /** Schedules dropped because their version is no longer enabled (or never fires again). */
  unscheduled: number;
}

/**
 * Every minute (the `cronDispatcher` function): claims the cron schedules due at `now`, records
 * a queued evaluation (cause `schedule`) of each one's version against every resource of the
 * environments it applies to, and moves each schedule to its next run after `now`, in one
 * transaction; then sends the tasks to the queue, as publish does. A schedule due several times
 * over (the service was down) runs once: the next run is counted from now, not from the missed one.
 */
export async function dispatchDueCronPolicies(ctx: GovernanceContext, now = new Date(), limit = 50): Promise<Dispatched> {
  const { database } = ctx;
  const { timeZone } = ctx.settings.cronPolicies;
  const schedules = new CronScheduleRepository(database);
  const runs: (QueuedEvaluation & { entityId: string })[] = [];
  let unscheduled = 0;
  await inTransaction(database, 'cron dispatch', async (tx) => {
    for (const { schedule, entity } of await schedules.claimDue(now, limit, tx)) {
      const nextRunAt = nextCronRun(schedule.cronExpression, now, timeZone);
      if (!entity || !nextRunAt) {
        await schedules.remove(schedule.entityId, tx);
        unscheduled++;
        continue;
      }
      const run = await recordQueuedEvaluation(database, tx, entity, 'schedule', await environmentsOf(database, entity), SCHEDULER_SUBJECT);
      await schedules.ran(schedule.entityId, now, nextRunAt, run.reportId, tx);
      runs.push({ ...run, entityId: entity.id });
    }
  });
  await sendTasks(
    ctx,
    runs.flatMap((run) => run.taskIds),
  );
  if (runs.length > 0) logger.info({ runs: runs.map(({ entityId, reportId }) => ({ entityId, reportId })) }, 'cron policies started');
  return { started: runs.map(({ entityId, reportId }) => ({ entityId, reportId })), unscheduled };
}
