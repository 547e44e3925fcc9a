import type { Database } from '#lib/db/client';
import { NotFoundError } from '#lib/errors/domain-errors';

import type { GovernanceContext } from '../context';
import { type Outcome, OUTCOMES } from './outcome';
import type { EvaluationReport, EvaluationResult, ReportResultsQuery } from './report';
import { recordsHistory, ReportRepository, type ReportRow } from './report-repository';
import { ResultRepository, type ResultRow } from './result-repository';
import { TaskRepository, type TaskRow } from './task-repository';

/** Most results in one page, and most bytes (UTF-8, as sent) of them: Lambda answers at most 6 MB. */
const MAX_RESULTS_PER_PAGE = 1000;
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

export function representResult(row: ResultRow): EvaluationResult {
  return {
    governanceEntityId: row.entityId,
    governanceEntityVersion: row.entityVersion,
    governanceEntityType: row.entityKind,
    governanceEntityStatus: row.entityStatus,
    severity: row.severity,
    outcome: row.outcome,
    resource: {
      id: row.resourceId,
      displayName: row.resourceDisplayName,
      version: row.resourceVersion,
      environment: row.environment,
      resourceType: row.resourceType,
    },
    result: row.result,
    creationTime: row.createdAt.toISOString(),
  };
}

/** One page of a report's results, each also as its JSON line, and the cursor of the next page. */
export interface ResultsPage {
  readonly results: EvaluationResult[];
  readonly lines: string[];
  readonly limit: number;
  readonly next: string | null;
}

/**
 * The results after the cursor, in the order they were written: at most `limit`, and no more than
 * MAX_PAGE_BYTES of them (at least one), so that any page fits in one answer.
 */
async function resultsPage(database: Database, reportId: string, query: ReportResultsQuery): Promise<ResultsPage> {
  return pageOf(await new ResultRepository(database).pageOfReport(reportId, query.after ?? 0, query.limit + 1), query.limit);
}

/** The page of `rows` (read one past `limit`, to tell whether more follow). */
function pageOf(rows: ResultRow[], limit: number): ResultsPage {
  const results: EvaluationResult[] = [];
  const lines: string[] = [];
  let bytes = 0;
  for (const row of rows.slice(0, limit)) {
    const result = representResult(row);
    const line = JSON.stringify(result);
    const size = Buffer.byteLength(line) + 1;
    if (results.length > 0 && bytes + size > MAX_PAGE_BYTES) break;
    bytes += size;
    results.push(result);
    lines.push(line);
  }
  const more = rows.length > results.length;
  return { results, lines, limit, next: more ? String(rows[results.length - 1].id) : null };
}

/** The pages of a running report that wait on a retry, and why. */
function waitingOf(tasks: TaskRow[]): NonNullable<EvaluationReport['progress']['waiting']> {
  return tasks.flatMap((task) =>
    task.waiting && (task.status === 'queued' || task.status === 'running') ? [{ environment: task.environment, ...task.waiting }] : [],
  );
}

function representReport(report: ReportRow, counts: Record<Outcome, number>, page: ResultsPage, tasks: TaskRow[]): EvaluationReport {
  const waiting = waitingOf(tasks);
  return {
    id: report.id,
    status: report.status,
    evaluationScope: report.scope,
    cause: report.cause,
    environment: report.environment,
    resourceType: report.resourceType,
    labels: report.labels,
    dryRun: !recordsHistory(report),
    outcome: report.outcome,
    passed: report.passed,
    progress: { total: report.total, done: report.done, ...(waiting.length > 0 ? { waiting } : {}) },
    counts: { total: OUTCOMES.reduce((sum, outcome) => sum + counts[outcome], 0), ...counts },
    error: report.error,
    evaluationResults: page.results,
    resultsPage: { limit: page.limit, next: page.next },
    createdAt: report.createdAt.toISOString(),
    createdBy: report.createdBy,
    completedAt: report.completedAt?.toISOString() ?? null,
  };
}

async function requireReport(database: Database, id: string): Promise<ReportRow> {
  const report = await new ReportRepository(database).find(id);
  if (!report) throw new NotFoundError(`No evaluation report has the id ${id}`);
  return report;
}

/** A report with its counts by outcome and the first page of its results (the one after `after`). */
export async function getEvaluationReport(
  ctx: GovernanceContext,
  id: string,
  query: ReportResultsQuery = { limit: MAX_RESULTS_PER_PAGE },
): Promise<EvaluationReport> {
  const database = ctx.database;
  const report = await requireReport(database, id);
  const ended = report.status === 'completed' || report.status === 'failed';
  const [counts, page, tasks] = await Promise.all([
    new ResultRepository(database).outcomeCountsOfReport(id),
    resultsPage(database, id, query),
    ended ? [] : new TaskRepository(database).ofReport(id),
  ]);
  return representReport(report, counts, page, tasks);
}

/**
 * A report that ended in the call that wrote it, answered as getEvaluationReport would read it
 * back, from what was written: the ended row and every result (in the order written).
 */
export function representWritten(report: ReportRow, results: ResultRow[]): EvaluationReport {
  const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, results.filter((row) => row.outcome === outcome).length])) as Record<Outcome, number>;
  return representReport(report, counts, pageOf(results.slice(0, MAX_RESULTS_PER_PAGE + 1), MAX_RESULTS_PER_PAGE), []);
}

/** A page of a report's results alone. */
export async function getEvaluationReportResults(ctx: GovernanceContext, id: string, query: ReportResultsQuery): Promise<ResultsPage> {
  const database = ctx.database;
  await requireReport(database, id);
  return resultsPage(database, id, query);
}
