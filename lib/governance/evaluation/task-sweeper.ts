import { inTransaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { maxReceivesOf } from '#lib/queue/queue-from-settings';

import type { GovernanceContext } from '../context';
import { perimeterOf } from './evaluation-runner';
import { sendTasks } from './queued-evaluation';
import { finishIfEnded } from './report-ending';
import { ReportRepository } from './report-repository';
import { TaskRepository } from './task-repository';

/** A worker holds its task this long past its last page; a message redelivered later may take it over. */
export const LEASE_MS = 120_000;
/** A task whose message did not reach the queue is sent again by the sweeper after this long. */
const UNSENT_GRACE_MS = 30_000;
/** Where no queue redelivers (serverless offline), the sweeper sends a failed page's message again after this long. */
export const LOCAL_RETRY_MS = 30_000;

/**
 * The dead-letter path: the task's page kept failing (or its worker kept dying), so the task ends
 * as failed with its last reason; the results of its earlier pages stay. The report fails once its
 * other tasks have ended.
 */
export async function deadLetterTask(ctx: GovernanceContext, taskId: string, reason?: string): Promise<void> {
  const { database } = ctx;
  const tasks = new TaskRepository(database);
  const task = await tasks.find(taskId);
  if (!task) return;
  const reports = new ReportRepository(database);
  const report = await reports.find(task.reportId);
  const entities = report?.request.entities.length ?? 1;
  const pageSize = report ? ((await perimeterOf(database, ctx.settings, report.resourceType).catch(() => undefined))?.batchSize ?? 0) : 0;
  const announced = await inTransaction(database, 'evaluation dead letter', async (tx) => {
    const locked = await reports.lock(task.reportId, tx);
    const lastError = task.lastError ?? `Environment ${task.environment}, page at offset ${task.offset}: its message was not processed`;
    const why = reason ?? `${lastError} (gave up after ${Math.max(task.attempts, 1)} attempts)`;
    if (!locked || !(await tasks.fail(taskId, why, tx))) return false;
    await reports.progressFromTasks(task.reportId, entities, pageSize, tx);
    return finishIfEnded(ctx, locked, tx);
  });
  if (announced) dispatchInBackground(ctx);
  logger.warn({ taskId, reportId: task.reportId, environment: task.environment }, 'an evaluation page kept failing: its task was dead-lettered');
}

/**
 * The sweeper's part: sends the tasks whose message never reached the queue; where no queue
 * redelivers (serverless offline), also redelivers failed pages and dead-letters those that failed
 * `evaluation.queue.max-receives` times, as SQS's redrive policy does in AWS.
 */
export async function sweepTasks(ctx: GovernanceContext, limit = 100): Promise<{ sent: number; redelivered: number; deadLettered: number }> {
  const tasks = new TaskRepository(ctx.database);
  const unsent = await tasks.unsent(UNSENT_GRACE_MS, limit);
  await sendTasks(ctx, unsent);
  if ((await ctx.queue()).redelivers) return { sent: unsent.length, redelivered: 0, deadLettered: 0 };
  await tasks.requeueAbandoned();
  const waiting = await tasks.awaitingRedelivery(LOCAL_RETRY_MS, limit);
  const maxReceives = maxReceivesOf(ctx.settings);
  const exhausted = waiting.filter((task) => task.attempts >= maxReceives);
  for (const task of exhausted) await deadLetterTask(ctx, task.id);
  const again = waiting.filter((task) => task.attempts < maxReceives).map((task) => task.id);
  await sendTasks(ctx, again);
  return { sent: unsent.length, redelivered: again.length, deadLettered: exhausted.length };
}
