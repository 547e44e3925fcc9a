import { and, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { deleteSome } from '#lib/db/purge';
import type { Transaction } from '#lib/db/transaction';

import type { Outcome } from './outcome';

export type ReportRow = Database['tables']['evaluationReports']['$inferSelect'];
export type NewReport = Pick<ReportRow, 'scope' | 'cause' | 'environment' | 'resourceType' | 'labels' | 'request' | 'createdBy'>;

/** How a report ends: completed with its outcome, or failed with the reason. */
type ReportEnding = { status: 'completed'; outcome: Outcome; passed: boolean } | { status: 'failed'; error: string };

export class ReportRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.evaluationReports;
  }

  async create(report: NewReport, tx: Pick<Transaction, 'insert'> = this.database.db): Promise<ReportRow> {
    const [row] = await tx.insert(this.table).values(report).returning();
    return row;
  }

  /**
   * A report born finished, written once with its outcome (the deploy gate's one transaction:
   * evaluateInOneTransaction); answers when it was created and completed (the transaction's time).
   */
  async createFinished(report: ReportRow, tx: Pick<Transaction, 'insert'>): Promise<Pick<ReportRow, 'createdAt' | 'completedAt'>> {
    const t = this.table;
    // The database's times, not the process's; no lease, no attempt.
    const { createdAt: _created, completedAt: _completed, leaseUntil: _lease, attempts: _attempts, ...written } = report;
    const [row] = await tx
      .insert(t)
      .values({ ...written, completedAt: sql`now()` })
      .returning({ createdAt: t.createdAt, completedAt: t.completedAt });
    return row;
  }

  async find(id: string): Promise<ReportRow | undefined> {
    const [row] = await this.database.db.select().from(this.table).where(eq(this.table.id, id));
    return row;
  }

  /**
   * Takes a report to run it: a pending one, or a running one whose run stopped renewing its lease
   * (the process died). Undefined when it is finished or someone else holds it.
   */
  async claim(id: string, leaseMs: number): Promise<ReportRow | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .update(t)
      .set({ status: 'running', leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})`, attempts: sql`${t.attempts} + 1` })
      .where(and(eq(t.id, id), or(eq(t.status, 'pending'), and(eq(t.status, 'running'), lt(t.leaseUntil, sql`now()`)))))
      .returning();
    return row;
  }

  /** A queued evaluation has begun: the first of its tasks was claimed. */
  async begin(id: string): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ status: 'running' })
      .where(and(eq(t.id, id), eq(t.status, 'pending')));
  }

  /** Holds the report row until the transaction ends: its tasks finish one at a time, so exactly one of them finishes the report. */
  async lock(id: string, tx: Pick<Transaction, 'select'>): Promise<ReportRow | undefined> {
    const [row] = await tx.select().from(this.table).where(eq(this.table.id, id)).for('update');
    return row;
  }

  /**
   * Progress of a queued evaluation, from its tasks: `done` counts what was evaluated; `total` adds
   * what is still expected (the resolver's `page.total` when it gives one, else one more page per
   * unfinished task), and equals `done` once every task has ended.
   */
  async progressFromTasks(id: string, entities: number, pageSize: number, tx: Pick<Transaction, 'update'>): Promise<void> {
    const t = this.table;
    const tasks = this.database.tables.evaluationTasks;
    await tx
      .update(t)
      .set({
        done: sql`(select coalesce(sum(${tasks.resources}), 0) * ${entities} from ${tasks} where ${tasks.reportId} = ${id})`,
        total: sql`(select coalesce(sum(case when ${tasks.status} in ('queued', 'running')
            then greatest(${tasks.resources}, coalesce(${tasks.expectedResources}, ${tasks.resources} + ${pageSize}))
            else ${tasks.resources} end), 0) * ${entities} from ${tasks} where ${tasks.reportId} = ${id})`,
      })
      .where(eq(t.id, id));
  }

  /** Progress of a run, which also keeps its lease. */
  async progress(id: string, total: number, done: number, leaseMs: number, attempt?: number): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ total, done, leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
      .where(and(eq(t.id, id), eq(t.status, 'running'), this.heldBy(attempt)));
  }

  /**
   * Ends the report: completed with its outcome, or failed with the reason (outcome failed, not
   * passed). The ended row, or undefined when it had ended already.
   */
  async finish(id: string, ending: ReportEnding, tx: Pick<Transaction, 'update'> = this.database.db, attempt?: number): Promise<ReportRow | undefined> {
    const t = this.table;
    const ended =
      ending.status === 'completed'
        ? { status: ending.status, outcome: ending.outcome, passed: ending.passed, error: null }
        : { status: ending.status, outcome: 'failed' as const, passed: false, error: ending.error.slice(0, 2000) };
    const [row] = await tx
      .update(t)
      .set({ ...ended, leaseUntil: null, completedAt: sql`now()` })
      .where(and(eq(t.id, id), inArray(t.status, ['pending', 'running']), this.heldBy(attempt)))
      .returning();
    return row;
  }

  /**
   * Only while the run that claimed the report as its `attempt`-th start still holds it: a run that
   * lost its lease (a process frozen, then thawed) neither renews, ends nor gives back the report
   * another run took over. No condition when `attempt` is undefined.
   */
  private heldBy(attempt: number | undefined) {
    return attempt === undefined ? undefined : eq(this.table.attempts, attempt);
  }

  /** Gives a running report back at once (its run was stopped), for the sweeper to run again; only while `attempt` holds it. */
  async release(id: string, attempt: number): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ leaseUntil: sql`now()` })
      .where(and(eq(t.id, id), eq(t.status, 'running'), this.heldBy(attempt)));
  }

  /** Reports nobody is running: pending ones older than `graceMs` and running ones whose lease ran out (queued evaluations are not: their tasks are redelivered). */
  private nobodyRuns(graceMs: number) {
    const t = this.table;
    return and(
      inArray(t.status, ['pending', 'running']),
      sql`${t.request}->>'mode' <> 'queued'`,
      or(and(eq(t.status, 'pending'), lt(t.createdAt, sql`now() - make_interval(secs => ${graceMs / 1000})`)), lt(t.leaseUntil, sql`now()`)),
    );
  }

  /** Abandoned reports started fewer than `maxAttempts` times: to run again. */
  async abandoned(graceMs: number, maxAttempts: number, limit: number): Promise<string[]> {
    const t = this.table;
    const rows = await this.database.db
      .select({ id: t.id })
      .from(t)
      .where(and(this.nobodyRuns(graceMs), lt(t.attempts, maxAttempts)))
      .orderBy(t.attempts, t.createdAt)
      .limit(limit);
    return rows.map((row) => row.id);
  }

  /** Abandoned reports started `maxAttempts` times already: failed, with the reason; returns them. */
  async giveUp(graceMs: number, maxAttempts: number): Promise<{ id: string; attempts: number }[]> {
    const t = this.table;
    return this.database.db
      .update(t)
      .set({
        status: 'failed',
        error: sql`'the evaluation was started ' || ${t.attempts} || ${` times and never finished (evaluation.max-attempts is ${maxAttempts})`}::text`,
        leaseUntil: null,
        completedAt: sql`now()`,
      })
      .where(and(this.nobodyRuns(graceMs), gte(t.attempts, maxAttempts)))
      .returning({ id: t.id, attempts: t.attempts });
  }

  /**
   * Deletes up to `limit` rows of reports that ended before `before` (retention.reports): first the
   * results only they hold (a test's), then the reports with the descriptors they were asked
   * about (their tasks go with them). Results of the history stay (ResultRepository.purgeSuperseded).
   */
  async purgeFinished(before: Date, limit: number): Promise<number> {
    const t = this.table;
    const ended = sql`select ${t.id} from ${t} where ${t.status} in ('completed', 'failed') and coalesce(${t.completedAt}, ${t.createdAt}) < ${before.toISOString()}::timestamptz`;
    const results = this.database.tables.evaluationResults;
    const tests = await deleteSome(this.database, results, sql`not ${results.recorded} and ${results.reportId} in (${ended})`, limit);
    if (tests === limit) return tests;
    return tests + (await deleteSome(this.database, t, sql`${t.id} in (${ended})`, limit - tests));
  }
}

/**
 * Whether a report's results enter the history (the resources' state): a test's, an impact
 * report's and a dry-run Evaluate's stay with their report.
 */
export const recordsHistory = (report: Pick<ReportRow, 'cause' | 'request'>): boolean =>
  report.cause !== 'test' && report.cause !== 'impact' && !(report.request.mode === 'descriptor' && report.request.dryRun);
