import { and, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { Outcome } from './outcome';

export type ReportRow = Database['tables']['evaluationReports']['$inferSelect'];
export type NewReport = Pick<ReportRow, 'scope' | 'cause' | 'environment' | 'resourceType' | 'labels' | 'request' | 'createdBy'>;

export class ReportRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.evaluationReports;
  }

  async create(report: NewReport): Promise<ReportRow> {
    const [row] = await this.database.db.insert(this.table).values(report).returning();
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

  /** Progress of a run, which also keeps its lease. */
  async progress(id: string, total: number, done: number, leaseMs: number): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ total, done, leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
      .where(and(eq(t.id, id), eq(t.status, 'running')));
  }

  async finish(id: string, status: 'completed' | 'failed', outcome: Outcome, passed: boolean, error: string | null = null): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ status, outcome, passed, error: error?.slice(0, 2000) ?? null, leaseUntil: null, completedAt: sql`now()` })
      .where(and(eq(t.id, id), eq(t.status, 'running')));
  }

  /** Reports nobody is running: pending ones older than `graceMs` and running ones whose lease ran out. */
  async abandoned(graceMs: number, limit: number): Promise<string[]> {
    const t = this.table;
    const rows = await this.database.db
      .select({ id: t.id })
      .from(t)
      .where(
        and(
          inArray(t.status, ['pending', 'running']),
          or(and(eq(t.status, 'pending'), lt(t.createdAt, sql`now() - make_interval(secs => ${graceMs / 1000})`)), lt(t.leaseUntil, sql`now()`)),
        ),
      )
      .limit(limit);
    return rows.map((row) => row.id);
  }
}
