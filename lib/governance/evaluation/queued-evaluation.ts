import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';

import type { ReportRequest } from '../../../drizzle/schema/json-columns';
import type { GovernanceContext } from '../context';
import type { PublishStarted } from '../context';
import { EnvironmentRepository } from '../environments/environment-repository';
import type { EntityRow } from '../policies/entity-repository';
import { ReportRepository } from './report-repository';
import { TaskRepository } from './task-repository';

// An evaluation of one version against every resource of its type, run by the evaluation worker
// through the queue (task-run.ts), one task per environment: recorded here, in the transaction of
// what starts it (a publish, a schedule, an impact check), and sent once that committed.

export interface QueuedEvaluation {
  reportId: string;
  taskIds: string[];
}

/** The environments an evaluation of the entity covers: its own, or every known one. */
export async function environmentsOf(database: Database, entity: Pick<EntityRow, 'environment'>): Promise<string[]> {
  return entity.environment !== null ? [entity.environment] : new EnvironmentRepository(database).names();
}

/**
 * Records, in the caller's transaction, an evaluation of the entity version against every
 * resource of its type in the environments: its report (scope `policy`) and one task per
 * environment. Nothing is sent yet: the caller sends the tasks once the transaction committed.
 */
export async function recordQueuedEvaluation(
  database: Database,
  tx: Transaction,
  entity: EntityRow,
  cause: 'publish' | 'schedule' | 'impact',
  environments: readonly string[],
  subject: string,
  baselineVersion?: number,
): Promise<QueuedEvaluation> {
  const request: ReportRequest = {
    mode: 'queued',
    entities: [{ id: entity.id, version: entity.version }],
    ...(baselineVersion === undefined ? {} : { baselineVersion }),
  };
  const reports = new ReportRepository(database);
  const report = await reports.create(
    {
      scope: 'policy',
      cause,
      environment: entity.environment,
      resourceType: entity.resourceType,
      labels: [],
      request,
      createdBy: subject,
    },
    tx,
  );
  const tasks = await new TaskRepository(database).createAll(report.id, environments, tx);
  if (tasks.length === 0) await reports.finish(report.id, { status: 'completed', outcome: 'ok', passed: true }, tx);
  return { reportId: report.id, taskIds: tasks.map((task) => task.id) };
}

/** Sends one message per task; a task whose message did not reach the queue is sent again by the sweeper. */
export async function sendTasks(ctx: Pick<GovernanceContext, 'database' | 'queue'>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const sent = await (await ctx.queue()).send(ids);
  await new TaskRepository(ctx.database).markSent(sent);
}

/**
 * The `published` hook: with `evaluation.enable-on-publish`, an evaluation of the version published
 * against every resource of every environment it applies to is recorded in the publish's
 * transaction (publishing again evaluates again), with the version enforced before as its baseline,
 * and its tasks are sent once the publish committed. A passive entity has nothing to run.
 */
export async function evaluateOnPublish(
  ctx: GovernanceContext,
  tx: Transaction,
  entity: EntityRow,
  { subject, enforcedVersion }: { subject: string; enforcedVersion?: number },
): Promise<PublishStarted | undefined> {
  if (!ctx.settings.evaluation.enableOnPublish || entity.engine === null) return undefined;
  const environments = await environmentsOf(ctx.database, entity);
  const queued = await recordQueuedEvaluation(ctx.database, tx, entity, 'publish', environments, subject, enforcedVersion);
  return { reportId: queued.reportId, afterCommit: () => sendTasks(ctx, queued.taskIds) };
}
