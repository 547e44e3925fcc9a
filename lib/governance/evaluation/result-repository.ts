import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { Pagination } from '../../http/pagination';
import type { Outcome } from './outcome';
import type { ResultFilters } from './report';

export type ResultRow = Database['tables']['evaluationResults']['$inferSelect'];
export type NewResult = Omit<ResultRow, 'id' | 'createdAt'>;

export class ResultRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.evaluationResults;
  }

  /** Appends results; one a re-run of the same report already wrote is skipped. */
  async append(results: readonly NewResult[]): Promise<ResultRow[]> {
    if (results.length === 0) return [];
    return this.database.db.insert(this.table).values([...results]).onConflictDoNothing().returning();
  }

  async ofReport(reportId: string): Promise<ResultRow[]> {
    return this.database.db.select().from(this.table).where(eq(this.table.reportId, reportId)).orderBy(asc(this.table.id));
  }

  async outcomesOfReport(reportId: string): Promise<Outcome[]> {
    const rows = await this.database.db.selectDistinct({ outcome: this.table.outcome }).from(this.table).where(eq(this.table.reportId, reportId));
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
    if (!filters.latest) {
      const filtered = filters.outcome ? and(where, eq(t.outcome, filters.outcome)) : where;
      const [rows, [{ total }]] = await Promise.all([
        this.database.db.select().from(t).where(filtered).orderBy(desc(t.id)).limit(pagination.limit).offset(pagination.offset),
        this.database.db.select({ total: count() }).from(t).where(filtered),
      ]);
      return { rows, total };
    }
    // The outcome filter applies to the latest results, not to the history before them.
    const latest = this.database.db
      .selectDistinctOn([t.entityId, t.resourceId, t.environment])
      .from(t)
      .where(where)
      .orderBy(t.entityId, t.resourceId, t.environment, desc(t.id))
      .as('latest');
    const outcomeFilter = filters.outcome ? sql`where ${sql.identifier('outcome')} = ${filters.outcome}` : sql``;
    const rows = (await this.database.db.execute(
      sql`select * from ${latest} ${outcomeFilter} order by ${sql.identifier('id')} desc limit ${pagination.limit} offset ${pagination.offset}`,
    )) as unknown as Record<string, unknown>[];
    const [{ total }] = (await this.database.db.execute(sql`select count(*)::int as total from ${latest} ${outcomeFilter}`)) as unknown as { total: number }[];
    return { rows: rows.map((row) => this.fromSql(row)), total };
  }

  /** A row read with plain SQL (snake_case columns) as drizzle would have given it. */
  private fromSql(row: Record<string, unknown>): ResultRow {
    return {
      id: Number(row.id),
      reportId: row.report_id as string | null,
      recorded: row.recorded as boolean,
      entityId: row.entity_id as string,
      entityVersion: row.entity_version as number,
      entityKind: row.entity_kind as ResultRow['entityKind'],
      entityStatus: row.entity_status as ResultRow['entityStatus'],
      severity: row.severity as ResultRow['severity'],
      outcome: row.outcome as ResultRow['outcome'],
      resourceId: row.resource_id as string,
      resourceDisplayName: row.resource_display_name as string | null,
      resourceVersion: row.resource_version as string | null,
      environment: row.environment as string,
      resourceType: row.resource_type as string,
      result: row.result as Record<string, unknown>,
      value: row.value as number | null,
      createdAt: new Date(row.created_at as string),
    };
  }
}
