import { and, asc, count, desc, eq, getTableColumns, gt, type SQL, sql } from 'drizzle-orm';

import type { Database } from '../../db/client';
import type { Transaction } from '../../db/transaction';
import type { Pagination } from '../../http/pagination';
import { type Outcome, OUTCOMES } from './outcome';
import type { ResultFilters } from './report';

export type ResultRow = Database['tables']['evaluationResults']['$inferSelect'];
/** The columns the database fills when a result is written. */
const WRITTEN_BY_DATABASE = ['id', 'createdAt'] as const;
export type NewResult = Omit<ResultRow, (typeof WRITTEN_BY_DATABASE)[number]>;

export class ResultRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.evaluationResults;
  }

  /**
   * Appends results in the order given; one a re-run of the same report already wrote is skipped.
   * One parameter whatever their number: the rows travel as one JSON array that PostgreSQL reads
   * as records (a multi-row VALUES built by the query builder cost ~15 ms of the worker's CPU per
   * 100 results, more than the database spent writing them).
   */
  async append(results: readonly NewResult[], tx: Pick<Transaction, 'execute'> = this.database.db): Promise<void> {
    if (results.length === 0) return;
    // The columns of a NewResult, under their SQL names and types.
    const columns = Object.entries(getTableColumns(this.table)).flatMap(([key, column]) =>
      (WRITTEN_BY_DATABASE as readonly string[]).includes(key) ? [] : [{ key: key as keyof NewResult, column }],
    );
    const names = sql.join(
      columns.map(({ column }) => sql.identifier(column.name)),
      sql`, `,
    );
    const types = sql.join(
      columns.map(({ column }) => sql`${sql.identifier(column.name)} ${sql.raw(column.getSQLType())}`),
      sql`, `,
    );
    const records = JSON.stringify(results.map((result) => Object.fromEntries(columns.map(({ key, column }) => [column.name, result[key]]))));
    await tx.execute(
      sql`insert into ${this.table} (${names}) select ${names}
        from rows from (jsonb_to_recordset(${records}::jsonb) as (${types})) with ordinality as given(${names}, position)
        order by position on conflict do nothing`,
    );
  }

  /** Appends one result and answers it as written. */
  async add(result: NewResult): Promise<ResultRow> {
    const [row] = await this.database.db.insert(this.table).values(result).returning();
    return row;
  }

  /** Up to `limit` results of a report written after the result `afterId`, in the order they were written. */
  async pageOfReport(reportId: string, afterId: number, limit: number): Promise<ResultRow[]> {
    const t = this.table;
    return this.database.db
      .select()
      .from(t)
      .where(and(eq(t.reportId, reportId), gt(t.id, afterId)))
      .orderBy(asc(t.id))
      .limit(limit);
  }

  /** How many results of the report have each outcome. */
  async outcomeCountsOfReport(reportId: string): Promise<Record<Outcome, number>> {
    const t = this.table;
    const rows = await this.database.db.select({ outcome: t.outcome, count: count() }).from(t).where(eq(t.reportId, reportId)).groupBy(t.outcome);
    return Object.fromEntries(OUTCOMES.map((outcome) => [outcome, rows.find((row) => row.outcome === outcome)?.count ?? 0])) as Record<Outcome, number>;
  }

  /** How many results of the report are not `ok` (not compliant, or not evaluated), of how many. */
  async countsOfReport(reportId: string, tx: Pick<Transaction, 'select'> = this.database.db): Promise<{ failed: number; total: number }> {
    const t = this.table;
    const [row] = await tx
      .select({ failed: sql<number>`count(*) filter (where ${t.outcome} <> 'ok')`.mapWith(Number), total: count() })
      .from(t)
      .where(eq(t.reportId, reportId));
    return row;
  }

  async outcomesOfReport(reportId: string, tx: Pick<Transaction, 'selectDistinct'> = this.database.db): Promise<Outcome[]> {
    const rows = await tx.selectDistinct({ outcome: this.table.outcome }).from(this.table).where(eq(this.table.reportId, reportId));
    return rows.map((row) => row.outcome);
  }

  /**
   * The history (results of policy tests excluded), newest first; with `latest`, only the newest
   * result of each (entity, resource, environment), read along the evaluation_results_latest index.
   */
  async list(filters: ResultFilters, pagination: Pagination): Promise<{ rows: ResultRow[]; total: number }> {
    const t = this.table;
    const conditions: SQL[] = [eq(t.recorded, true)];
    if (filters.resourceId) conditions.push(eq(t.resourceId, filters.resourceId));
    if (filters.policyId) conditions.push(eq(t.entityId, filters.policyId));
    if (filters.environment) conditions.push(eq(t.environment, filters.environment));
    const where = and(...conditions);
    // With `latest`, the outcome filter applies to the newest results, not to the history before them.
    const source = filters.latest
      ? this.database.db
          .selectDistinctOn([t.entityId, t.resourceId, t.environment])
          .from(t)
          .where(where)
          .orderBy(t.entityId, t.resourceId, t.environment, desc(t.id))
          .as('latest')
      : t;
    const filtered = filters.outcome ? eq(source.outcome, filters.outcome) : undefined;
    const outerWhere = filters.latest ? filtered : and(where, filtered);
    const [rows, [{ total }]] = await Promise.all([
      this.database.db.select().from(source).where(outerWhere).orderBy(desc(source.id)).limit(pagination.limit).offset(pagination.offset),
      this.database.db.select({ total: count() }).from(source).where(outerWhere),
    ]);
    return { rows: rows as ResultRow[], total };
  }
}
