import { performance } from 'node:perf_hooks';

import { failureReason } from '#lib/db/query-errors';
import { inTransaction } from '#lib/db/transaction';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { callerTargetTimeoutsOf } from '#lib/platform/http-client';
import { ResolverError } from '#lib/platform/perimeter-resolver';
import { maxReceivesOf, visibilityMsOf } from '#lib/queue/queue-from-settings';

import type { GovernanceContext } from '../context';
import type { EntityRow } from '../policies/entity-repository';
import { entitiesOf, evaluateCandidates, fromResolver, perimeterOf, type RunContext } from './evaluation-runner';
import { type PageGroup, readPages, resourcesPerCall } from './page-groups';
import { sendTasks } from './queued-evaluation';
import { finishIfEnded } from './report-ending';
import { ReportRepository, type ReportRow } from './report-repository';
import { type NewResult, ResultRepository } from './result-repository';
import { type PagesDone, TaskRepository, type TaskRow } from './task-repository';
import { deadLetterTask, LEASE_MS, LOCAL_RETRY_MS } from './task-sweeper';

/** With less time than this left in its invocation, a worker starts no new page: it hands the rest on in a new message. */
const MIN_REMAINING_MS = 60_000;

/** A page could not be evaluated; the task is queued again for the queue's redelivery of its message. */
class PageFailure extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PageFailure';
  }
}

/** The write of the pages at `offset` failed (noticed after the next pages were evaluated). */
class PagesNotWritten extends Error {
  constructor(
    readonly offset: number,
    options: ErrorOptions,
  ) {
    super('the pages could not be written', options);
    this.name = 'PagesNotWritten';
  }
}

/** What became of a task's message. */
export type TaskRun = 'done' | 'continued' | 'skipped';

/** One task's run: where it evaluates, and what it evaluates there. */
interface TaskWork {
  run: RunContext;
  entities: EntityRow[];
}

/** The versions and the perimeter of a claimed task; none when the versions are gone (the task is dead-lettered). */
async function workOf(ctx: GovernanceContext, task: TaskRow, remainingMs: () => number, ended: AbortSignal): Promise<TaskWork | undefined> {
  const { database, settings } = ctx;
  const report = (await new ReportRepository(database).find(task.reportId)) as ReportRow;
  const entities = await entitiesOf(database, report.request);
  if (entities.length === 0) {
    await deadLetterTask(ctx, task.id, `Environment ${task.environment}: the version evaluated no longer exists`);
    return undefined;
  }
  const tasks = new TaskRepository(database);
  // Resolver calls (with their retries) give up before the invocation's end, so that a page that hangs is recorded as failed rather than cut off.
  const signal = AbortSignal.any([AbortSignal.timeout(Math.max(30_000, remainingMs() - 15_000)), ended]);
  const onResolverRetry: RunContext['onResolverRetry'] = (at, { nextTryAt, ...retry }) =>
    tasks.waiting(task.id, { kind: 'call', offset: at, ...retry, nextTryAt: nextTryAt.toISOString() });
  const run: RunContext = {
    database,
    settings,
    report,
    environment: task.environment,
    perimeter: await perimeterOf(database, settings, report.resourceType),
    timeouts: callerTargetTimeoutsOf(settings),
    signal,
    onResolverRetry,
  };
  return { run, entities };
}

/**
 * Writes the results of a group of pages, the task's progress and next offset, and the report's,
 * in one transaction; ends the report after its last page. False when another worker took the task over.
 */
async function writePages(
  ctx: GovernanceContext,
  task: TaskRow,
  { run, entities }: TaskWork,
  rows: NewResult[],
  done: Omit<PagesDone, 'databaseMs'> & { writtenFrom: number },
): Promise<boolean> {
  const { database } = ctx;
  const tasks = new TaskRepository(database);
  const reports = new ReportRepository(database);
  let announced = false;
  const moved = await inTransaction(database, 'evaluation pages', async (tx) => {
    // Statements sent together run in order, one round trip for both (the worker's thread is busy evaluating the next pages).
    await Promise.all([reports.lock(run.report.id, tx), new ResultRepository(database).append(rows, tx)]);
    const { writtenFrom, ...pages } = done;
    // The report's progress is read from the tasks after this one moved (when it did not, it is read again as it was).
    const [ours] = await Promise.all([
      tasks.pagesDone(task.id, { ...pages, databaseMs: performance.now() - writtenFrom }, LEASE_MS, tx),
      reports.progressFromTasks(run.report.id, entities.length, run.perimeter.batchSize, tx),
    ]);
    if (!ours) return false;
    if (done.last) announced = await finishIfEnded(ctx, run.report, tx);
    return true;
  });
  if (announced) dispatchInBackground(ctx);
  return moved;
}

/**
 * Records a page's failure on the task, for the queue's redelivery of its message (or the
 * sweeper's, where no queue redelivers), and answers the PageFailure to throw.
 */
async function pageFailed(ctx: GovernanceContext, task: TaskRow, failure: { offset: number; pageSize?: number; receivedAt: number; error: unknown }) {
  const { offset, pageSize, receivedAt, error } = failure;
  const page = `Environment ${task.environment}, page at offset ${offset}${pageSize ? ` (limit ${pageSize})` : ''}`;
  const reason = `${page}: ${failureReason(error)}`;
  // The running report shows no internal address: the resolver's own account of the failure, else none (the logs have it).
  const shown = `${page}: ${error instanceof ResolverError ? error.reason : "the page could not be evaluated (the evaluation worker's log says why)"}`;
  const { settings } = ctx;
  const nextTryAt = (await ctx.queue()).redelivers ? new Date(receivedAt + visibilityMsOf(settings)) : new Date(Date.now() + LOCAL_RETRY_MS);
  await new TaskRepository(ctx.database).attemptFailed(task.id, reason, { offset, reason: shown, attempts: maxReceivesOf(settings), nextTryAt });
  return new PageFailure(reason, { cause: error });
}

/**
 * The worker's part: claims the task and evaluates the perimeter of its environment page by page
 * (`limit` = the type's batch size; a few pages per engine call), the results, progress and next
 * offset of those pages written in one transaction. The next pages are read from the resolver while
 * the current ones are evaluated, and evaluated while the current ones are written (one write at a
 * time, in order). Stops at the short page that ends the perimeter, or
 * hands the rest on in a new message when `remainingMs()` says its invocation is running out of
 * time. A task that is finished or held by another worker is skipped, so a message delivered twice
 * does the work once. A failed page throws PageFailure after recording the failure.
 */
export async function runTask(ctx: GovernanceContext, taskId: string, remainingMs: () => number): Promise<TaskRun> {
  // SQS's visibility timeout (when a failed message is delivered again) runs from about now, when the message was received.
  const receivedAt = Date.now();
  const tasks = new TaskRepository(ctx.database);
  const task = await tasks.claim(taskId, LEASE_MS);
  if (!task) return 'skipped';
  // How long the message waited for a worker (since it was sent; a continuation since it was sent again).
  if (task.sentAt) recordMetric('QueueLag', MetricUnit.Milliseconds, receivedAt - task.sentAt.getTime());
  await new ReportRepository(ctx.database).begin(task.reportId);
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
  // The write of the pages evaluated before the current ones: true once written, false when another worker took the task over.
  let writing: Promise<boolean> | undefined;
  const written = async () => {
    const moved = await writing;
    writing = undefined;
    return moved !== false;
  };
  try {
    const work = await workOf(ctx, task, remainingMs, ended.signal);
    if (!work) return 'done';
    const { run, entities } = work;
    pageSize = run.perimeter.batchSize;
    const perCall = resourcesPerCall(entities);
    reading = readPages(run, offset, perCall);
    while (reading) {
      const started = performance.now();
      const { pages, last, unreadable }: PageGroup = await reading;
      const resources = pages.flatMap((page) => page.resources);
      const advance: number = pages.length * pageSize;
      // Read ahead, unless these pages end the perimeter or this invocation hands the rest on after them.
      reading = last || unreadable || remainingMs() < MIN_REMAINING_MS ? undefined : readPages(run, offset + advance, perCall);
      // A failure of the pages read ahead is met when they are awaited, after these are written.
      reading?.catch(() => undefined);
      const fetched = performance.now();
      const rows = await evaluateCandidates(run, entities, resources.map(fromResolver));
      const evaluatedAt = performance.now();
      // Another worker took the task over (this one was too slow to renew its lease): it goes on from here.
      if (!(await written())) return 'skipped';
      const at = offset;
      writing = writePages(ctx, task, work, rows, {
        offset: at,
        advance,
        resources: resources.length,
        expectedResources: pages.at(-1)?.total,
        last,
        resolverMs: fetched - started,
        engineMs: evaluatedAt - fetched,
        // From now: the wait for the write before is neither the engine's time nor the database's for these pages.
        writtenFrom: performance.now(),
      }).catch((error: unknown) => {
        throw new PagesNotWritten(at, { cause: error });
      });
      // Met when awaited, after the next pages are evaluated.
      writing.catch(() => undefined);
      offset += advance;
      if (last) return (await written()) ? 'done' : 'skipped';
      if (unreadable) {
        if (!(await written())) return 'skipped';
        throw unreadable.error;
      }
    }
    if (!(await written())) return 'skipped';
    await tasks.release(taskId);
    await sendTasks(ctx, [taskId]);
    return 'continued';
  } catch (caught) {
    await stopReading();
    // The pages to try again: those whose write failed, else those that failed. A write still
    // under way ends first, and its own failure (of earlier pages) is the one recorded.
    let failure = caught instanceof PagesNotWritten ? { at: caught.offset, error: caught.cause } : { at: offset, error: caught };
    if (writing) {
      try {
        if (!(await written())) return 'skipped';
      } catch (earlier) {
        if (earlier instanceof PagesNotWritten) failure = { at: earlier.offset, error: earlier.cause };
      }
    }
    throw await pageFailed(ctx, task, { offset: failure.at, pageSize, receivedAt, error: failure.error });
  } finally {
    await writing?.catch(() => undefined);
    await stopReading();
  }
}
