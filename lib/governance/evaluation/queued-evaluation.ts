import { performance } from 'node:perf_hooks';

import { type Database, getDatabase } from '#lib/db/client';
import { inTransaction, type Transaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { announceKnowledgeChangeIn } from '#lib/outbox/knowledge-changes';
import { callerTargetTimeoutsOf } from '#lib/platform/http-client';
import { fetchPerimeterPage, type PerimeterPage, ResolverError, type ResolverRetry } from '#lib/platform/perimeter-resolver';
import { getJobQueue, maxReceivesOf, visibilityMsOf } from '#lib/queue/queue-from-settings';
import { getSettings } from '#lib/settings/index';

import type { ReportRequest } from '../../../drizzle/schema/json-columns';
import { EnvironmentRepository } from '../environments/environment-repository';
import type { EntityRow } from '../policies/entity-repository';
import { announceRuntimeFailure } from '../scheduling/runtime-failure';
import { entitiesOf, evaluateCandidates, fromResolver, perimeterOf, recordsHistory, type RunContext } from './evaluation-runner';
import { announceNewlyFailing } from './newly-failing';
import { overallOutcome } from './outcome';
import { ReportRepository, type ReportRow } from './report-repository';
import { ResultRepository } from './result-repository';
import { TaskRepository } from './task-repository';

/** A worker holds its task this long past its last page; a message redelivered later may take it over. */
const LEASE_MS = 120_000;
/** With less time than this left in its invocation, a worker starts no new page: it hands the rest on in a new message. */
const MIN_REMAINING_MS = 60_000;
/**
 * Pages are evaluated together until one engine call has this many resources: bench (e) measured
 * CUE ~35 % faster on calls of 100 descriptors of ~4.7 KB than on calls of 50 (fewer, fuller runs).
 */
const ENGINE_CALL_RESOURCES = 100;
/** A task whose message did not reach the queue is sent again by the sweeper after this long. */
const UNSENT_GRACE_MS = 30_000;
/** Where no queue redelivers (serverless offline), the sweeper sends a failed page's message again after this long. */
const LOCAL_RETRY_MS = 30_000;

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
export async function sendTasks(ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const sent = await (await getJobQueue()).send(ids);
  await new TaskRepository(await getDatabase()).markSent(sent);
}

/**
 * When the last of its tasks has ended, the report ends: `failed` naming the pages that failed, else
 * `completed` with its outcome. A scheduled run that failed somewhere is announced (events,
 * notifications) in the same transaction. True when something was written to the outbox.
 */
async function finishIfEnded(database: Database, report: ReportRow, tx: Transaction): Promise<boolean> {
  const tasks = await new TaskRepository(database).ofReport(report.id, tx);
  if (tasks.some((task) => task.status === 'queued' || task.status === 'running')) return false;
  const reports = new ReportRepository(database);
  const failed = tasks.filter((task) => task.status === 'failed');
  let ended: ReportRow | undefined;
  if (failed.length > 0) {
    ended = await reports.finish(report.id, { status: 'failed', error: failed.map((task) => task.lastError).join('; ') }, tx);
  } else {
    const { outcome, passed } = overallOutcome(await new ResultRepository(database).outcomesOfReport(report.id, tx));
    ended = await reports.finish(report.id, { status: 'completed', outcome, passed }, tx);
  }
  if (!ended) return false;
  if (!recordsHistory(ended.cause)) return false;
  await announceKnowledgeChangeIn(database, tx, { type: 'results', id: ended.id });
  if (ended.cause === 'schedule') await announceRuntimeFailure(database, ended, tx);
  if (ended.cause === 'publish') await announceNewlyFailing(database, ended, tx);
  return true;
}

/** A page could not be evaluated; the task is queued again for the queue's redelivery of its message. */
class PageFailure extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PageFailure';
  }
}

/** What became of a task's message. */
export type TaskRun = 'done' | 'continued' | 'skipped';

interface PageGroup {
  pages: PerimeterPage[];
  /** The short page that ends the perimeter was read. */
  last: boolean;
  /** A page after the first could not be read: the group stops before it, and it fails once the others are kept. */
  unreadable?: { offset: number; error: unknown };
}

/** Reads pages from `offset` until the group holds ENGINE_CALL_RESOURCES resources or the last page; the first page's failure throws. */
async function readPages(ctx: RunContext, offset: number): Promise<PageGroup> {
  const group: PageGroup = { pages: [], last: false };
  const size = ctx.perimeter.batchSize;
  while (!group.last && group.pages.reduce((sum, page) => sum + page.resources.length, 0) < ENGINE_CALL_RESOURCES) {
    const at = offset + group.pages.length * size;
    try {
      const { onResolverRetry } = ctx;
      const onRetry = onResolverRetry && ((retry: ResolverRetry) => onResolverRetry(at, retry));
      const page = await fetchPerimeterPage(ctx.perimeter, ctx.environment, at, ctx.timeouts, ctx.signal, onRetry);
      group.pages.push(page);
      group.last = page.resources.length < size;
    } catch (error) {
      if (group.pages.length === 0) throw error;
      return { ...group, unreadable: { offset: at, error } };
    }
  }
  return group;
}

/**
 * The worker's part: claims the task and evaluates the perimeter of its environment page by page
 * (`limit` = the type's batch size; a few pages per engine call), the results, progress and next
 * offset of those pages written in one transaction. The next pages are read from the resolver while
 * the current ones are evaluated and written. Stops at the short page that ends the perimeter, or
 * hands the rest on in a new message when `remainingMs()` says its invocation is running out of
 * time. A task that is finished or held by another worker is skipped, so a message delivered twice
 * does the work once. A failed page throws PageFailure after recording the failure.
 */
export async function runTask(taskId: string, remainingMs: () => number): Promise<TaskRun> {
  // SQS's visibility timeout (when a failed message is delivered again) runs from about now, when the message was received.
  const receivedAt = Date.now();
  const database = await getDatabase();
  const settings = await getSettings();
  const tasks = new TaskRepository(database);
  const reports = new ReportRepository(database);
  const task = await tasks.claim(taskId, LEASE_MS);
  if (!task) return 'skipped';
  await reports.begin(task.reportId);
  // The first page not written yet.
  let offset = task.offset;
  let pageSize: number | undefined;
  // The pages being read (ahead of those evaluated), and how to stop reading them when the run ends without them.
  let reading: Promise<PageGroup> | undefined;
  const ended = new AbortController();
  const stopReading = async () => {
    ended.abort();
    // Once the read has ended, its retries can no longer mark the task as waiting.
    await reading?.catch(() => undefined);
  };
  try {
    const report = (await reports.find(task.reportId)) as ReportRow;
    const entities = await entitiesOf(database, report.request);
    if (entities.length === 0) {
      await deadLetterTask(taskId, `Environment ${task.environment}: the version evaluated no longer exists`);
      return 'done';
    }
    const perimeter = await perimeterOf(database, settings, report.resourceType);
    pageSize = perimeter.batchSize;
    // Resolver calls (with their retries) give up before the invocation's end, so that a page that hangs is recorded as failed rather than cut off.
    const signal = AbortSignal.any([AbortSignal.timeout(Math.max(30_000, remainingMs() - 15_000)), ended.signal]);
    const onResolverRetry: RunContext['onResolverRetry'] = (at, { nextTryAt, ...retry }) =>
      tasks.waiting(taskId, { kind: 'call', offset: at, ...retry, nextTryAt: nextTryAt.toISOString() });
    const ctx: RunContext = {
      database,
      settings,
      report,
      environment: task.environment,
      perimeter,
      timeouts: callerTargetTimeoutsOf(settings),
      signal,
      onResolverRetry,
    };
    reading = readPages(ctx, offset);
    while (reading) {
      const started = performance.now();
      const { pages, last, unreadable }: PageGroup = await reading;
      const resources = pages.flatMap((page) => page.resources);
      const advance: number = pages.length * perimeter.batchSize;
      // Read ahead, unless these pages end the perimeter or this invocation hands the rest on after them.
      reading = last || unreadable || remainingMs() < MIN_REMAINING_MS ? undefined : readPages(ctx, offset + advance);
      // A failure of the pages read ahead is met when they are awaited, after these are written.
      reading?.catch(() => undefined);
      const fetched = performance.now();
      const rows = await evaluateCandidates(ctx, entities, resources.map(fromResolver));
      const evaluated = performance.now();
      let announced = false;
      const moved = await inTransaction(database, 'evaluation pages', async (tx) => {
        await reports.lock(report.id, tx);
        await new ResultRepository(database).append(rows, tx);
        const done = {
          offset,
          advance,
          resources: resources.length,
          expectedResources: pages.at(-1)?.total,
          last,
          resolverMs: fetched - started,
          engineMs: evaluated - fetched,
          databaseMs: performance.now() - evaluated,
        };
        if (!(await tasks.pagesDone(taskId, done, LEASE_MS, tx))) return false;
        await reports.progressFromTasks(report.id, entities.length, perimeter.batchSize, tx);
        if (last) announced = await finishIfEnded(database, report, tx);
        return true;
      });
      if (announced) dispatchInBackground();
      // Another worker took the task over (this one was too slow to renew its lease): it goes on from here.
      if (!moved) return 'skipped';
      if (last) return 'done';
      offset += advance;
      if (unreadable) throw unreadable.error;
    }
    await tasks.release(taskId);
    await sendTasks([taskId]);
    return 'continued';
  } catch (error) {
    await stopReading();
    const page = `Environment ${task.environment}, page at offset ${offset}${pageSize ? ` (limit ${pageSize})` : ''}`;
    const reason = `${page}: ${(error as Error).message}`;
    // The running report shows no internal address: the resolver's own account of the failure, else none (the logs have it).
    const shown = `${page}: ${error instanceof ResolverError ? error.reason : "the page could not be evaluated (the evaluation worker's log says why)"}`;
    const settings = await getSettings();
    const nextTryAt = (await getJobQueue()).redelivers ? new Date(receivedAt + visibilityMsOf(settings)) : new Date(Date.now() + LOCAL_RETRY_MS);
    await tasks.attemptFailed(taskId, reason, { offset, reason: shown, attempts: maxReceivesOf(settings), nextTryAt });
    throw new PageFailure(reason, { cause: error });
  } finally {
    await stopReading();
  }
}

/**
 * The dead-letter path: the task's page kept failing (or its worker kept dying), so the task ends
 * as failed with its last reason; the results of its earlier pages stay. The report fails once its
 * other tasks have ended.
 */
export async function deadLetterTask(taskId: string, reason?: string): Promise<void> {
  const database = await getDatabase();
  const tasks = new TaskRepository(database);
  const task = await tasks.find(taskId);
  if (!task) return;
  const reports = new ReportRepository(database);
  const report = await reports.find(task.reportId);
  const entities = report?.request.entities.length ?? 1;
  const pageSize = report ? ((await perimeterOf(database, await getSettings(), report.resourceType).catch(() => undefined))?.batchSize ?? 0) : 0;
  const announced = await inTransaction(database, 'evaluation dead letter', async (tx) => {
    const locked = await reports.lock(task.reportId, tx);
    const lastError = task.lastError ?? `Environment ${task.environment}, page at offset ${task.offset}: its message was not processed`;
    const why = reason ?? `${lastError} (gave up after ${Math.max(task.attempts, 1)} attempts)`;
    if (!locked || !(await tasks.fail(taskId, why, tx))) return false;
    await reports.progressFromTasks(task.reportId, entities, pageSize, tx);
    return finishIfEnded(database, locked, tx);
  });
  if (announced) dispatchInBackground();
  logger.warn({ taskId, reportId: task.reportId, environment: task.environment }, 'an evaluation page kept failing: its task was dead-lettered');
}

/**
 * The sweeper's part: sends the tasks whose message never reached the queue; where no queue
 * redelivers (serverless offline), also redelivers failed pages and dead-letters those that failed
 * `evaluation.queue.max-receives` times, as SQS's redrive policy does in AWS.
 */
export async function sweepTasks(limit = 100): Promise<{ sent: number; redelivered: number; deadLettered: number }> {
  const tasks = new TaskRepository(await getDatabase());
  const unsent = await tasks.unsent(UNSENT_GRACE_MS, limit);
  await sendTasks(unsent);
  if ((await getJobQueue()).redelivers) return { sent: unsent.length, redelivered: 0, deadLettered: 0 };
  await tasks.requeueAbandoned();
  const waiting = await tasks.awaitingRedelivery(LOCAL_RETRY_MS, limit);
  const maxReceives = maxReceivesOf(await getSettings());
  const exhausted = waiting.filter((task) => task.attempts >= maxReceives);
  for (const task of exhausted) await deadLetterTask(task.id);
  const again = waiting.filter((task) => task.attempts < maxReceives).map((task) => task.id);
  await sendTasks(again);
  return { sent: unsent.length, redelivered: again.length, deadLettered: exhausted.length };
}
