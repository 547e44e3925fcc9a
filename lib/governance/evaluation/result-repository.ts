import { and, asc, count, desc, eq, getTableColumns, gt, inArray, type SQL, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { deleteSome } from '#lib/db/purge';
import { inTransaction, type Transaction } from '#lib/db/transaction';
import type { Pagination } from '#lib/http/pagination';

import { type Outcome, OUTCOMES } from './outcome';
import type { ResultFilters } from './report';

export type ResultRow = Database['tables']['evaluationResults']['$inferSelect'];
/** The columns the database fills when a result is written. */
const WRITTEN_BY_DATABASE = ['id', 'createdAt'] as const;
export type NewResult = Omit<ResultRow, (typeof WRITTEN_BY_DATABASE)[number] | 'resourceOwner'> & { resourceOwner?: string | null };
/** What latest_results copies of a written result. */
const LATEST_SOURCE_COLUMNS = sql.raw('id, recorded, entity_id, resource_id, environment, resource_type, outcome');

type ResultsTable = Database['tables']['evaluationResults'];

/** The columns of a NewResult, under their SQL names and types: the same for every append, made once per table (its schema). */
const shapes = new WeakMap<ResultsTable, { columns: Array<{ key: keyof NewResult; name: string }>; names: SQL; types: SQL }>();

function shapeOf(table: ResultsTable) {
  let shape = shapes.get(table);
  if (!shape) {
    const columns = Object.entries(getTableColumns(table)).flatMap(([key, column]) =>
      (WRITTEN_BY_DATABASE as readonly string[]).includes(key) ? [] : [{ key: key as keyof NewResult, name: column.name, type: column.getSQLType() }],
    );
    // Our schema's own names (quoted as identifiers), never a caller's.
    const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
    shape = {
      columns,
      names: sql.raw(columns.map(({ name }) => quoted(name)).join(', ')),
      types: sql.raw(columns.map(({ name, type }) => `${quoted(name)} ${type}`).join(', ')),
    };
    shapes.set(table, shape);
  }
  return shape;
}

export class ResultRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.evaluationResults;
  }

  /**
   * Appends results in the order given; one a re-run of the same report already wrote is skipped.
   * One parameter whatever their number: the rows travel as one JSON array that PostgreSQL reads
   * as records (a multi-row VALUES built by the query builder cost ~15 ms of the worker's CPU per
   * 100 results, more than the database spent writing them). Answers the id and creation time of
   * each result written, in the order given.
   */
  async append(results: readonly NewResult[], tx: Pick<Transaction, 'execute'> = this.database.db): Promise<Array<{ id: number; createdAt: Date }>> {
    if (results.length === 0) return [];
    const { columns, names, types } = shapeOf(this.table);
    const records = JSON.stringify(results.map((result) => Object.fromEntries(columns.map(({ key, name }) => [name, result[key]]))));
    // Ids are taken in the order of the rows inserted: by position.
    // Raw, as drizzle's driver gives them: a bigint and a timestamptz as text (read as drizzle reads them).
    const written = await tx.execute<{ id: string; created_at: string }>(
      sql`with written as (
          insert into ${this.table} (${names}) select ${names}
          from rows from (jsonb_to_recordset(${records}::jsonb) as (${types})) with ordinality as given(${names}, position)
          order by position on conflict do nothing
          returning ${LATEST_SOURCE_COLUMNS}, created_at),
        latest as (${this.advanceLatest(sql`written`)})
        select id, created_at from written order by id`,
    );
    return written.map((row) => ({ id: Number(row.id), createdAt: new Date(row.created_at) }));
  }

  /** Appends one result and answers it as written. */
  async add(result: NewResult): Promise<ResultRow> {
    return inTransaction(this.database, 'ResultRepository.add', async (tx) => {
      const [row] = await tx.insert(this.table).values(result).returning();
      await tx.execute(this.advanceLatest(sql`(select ${LATEST_SOURCE_COLUMNS} from ${this.table} where id = ${row.id}) as written`));
      return row;
    });
  }

  /**
   * Makes the recorded results of `written` the latest of their (entity, resource, environment)
   * unless a newer one is there already (two reports writing the same pair at once). Rows are
   * locked in key order, so two writers never wait on each other in a cycle; one pair written twice
   * in a batch counts its newest result.
   */
  private advanceLatest(written: SQL): SQL {
    const latest = this.database.tables.latestResults;
    return sql`insert into ${latest} (entity_id, resource_id, environment, resource_type, outcome, result_id)
      select distinct on (entity_id, resource_id, environment) entity_id, resource_id, environment, resource_type, outcome, id
      from ${written} where recorded order by entity_id, resource_id, environment, id desc
      on conflict (entity_id, resource_id, environment) do update
        set resource_type = excluded.resource_type, outcome = excluded.outcome, result_id = excluded.result_id
        where ${latest}.result_id < excluded.result_id`;
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

  /** How many results of the report are neither `ok` nor `waived` (not compliant, or not evaluated), of how many. */
  async countsOfReport(reportId: string, tx: Pick<Transaction, 'select'> = this.database.db): Promise<{ failed: number; total: number }> {
    const t = this.table;
    const [row] = await tx
      .select({ failed: sql<number>`count(*) filter (where ${t.outcome} not in ('ok', 'waived'))`.mapWith(Number), total: count() })
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
   * result of each (entity, resource, environment), read from latest_results (the outcome filter
   * then applies to those newest results, not to the history before them).
   */
  async list(filters: ResultFilters, pagination: Pagination): Promise<{ rows: ResultRow[]; total: number }> {
    const t = filters.latest ? this.database.tables.latestResults : this.table;
    const conditions: SQL[] = filters.latest ? [] : [eq(this.table.recorded, true)];
    if (filters.resourceId) conditions.push(eq(t.resourceId, filters.resourceId));
    if (filters.policyId) conditions.push(eq(t.entityId, filters.policyId));
    const environment = filters.environment ?? filters.env;
    if (environment) conditions.push(eq(t.environment, environment));
    if (filters.resourceType) conditions.push(eq(t.resourceType, filters.resourceType));
    if (filters.outcome) conditions.push(eq(t.outcome, filters.outcome));
    if (filters.owner !== undefined) {
      const results = this.table;
      // latest_results keeps no owner: the newest result it points at (by its key) names it.
      conditions.push(
        filters.latest
          ? sql`exists (select 1 from ${results} where ${results.id} = ${this.database.tables.latestResults.resultId} and ${results.resourceOwner} = ${filters.owner})`
          : eq(results.resourceOwner, filters.owner),
      );
    }
    const where = and(...conditions);
    const db = this.database.db;
    if (!filters.latest) {
      const [rows, [{ total }]] = await Promise.all([
        db.select().from(this.table).where(where).orderBy(desc(this.table.id)).limit(pagination.limit).offset(pagination.offset),
        db.select({ total: count() }).from(this.table).where(where),
      ]);
      return { rows, total };
    }
    const latest = this.database.tables.latestResults;
    const page = db
      .select({ resultId: latest.resultId })
      .from(latest)
      .where(where)
      .orderBy(desc(latest.resultId))
      .limit(pagination.limit)
      .offset(pagination.offset);
    const [rows, [{ total }]] = await Promise.all([
      db.select().from(this.table).where(inArray(this.table.id, page)).orderBy(desc(this.table.id)),
      db.select({ total: count() }).from(latest).where(where),
    ]);
    return { rows, total };
  }

  /**
   * Deletes up to `limit` results of the history written before `before` that a newer result of
   * the same (entity, resource, environment), also written before it, supersedes: from `before`
   * on, none of them is the newest of its pair any more, so no compliance of a day after it needs
   * them (the caller keeps `before` at or before the oldest day the trend has not recorded). The
   * newest result of every pair stays, however old, and so does the first result of the history,
   * which tells when it starts (days before it count nothing in the trend). Answers how many.
   */
  purgeSuperseded(before: Date, limit: number): Promise<number> {
    const t = this.table;
    return deleteSome(
      this.database,
      t,
      sql`${t.recorded} and ${t.createdAt} < ${before.toISOString()}::timestamptz and exists (
        select 1 from ${t} n where n.entity_id = ${t.entityId} and n.resource_id = ${t.resourceId} and n.environment = ${t.environment}
          and n.recorded and n.id > ${t.id} and n.created_at < ${before.toISOString()}::timestamptz)
        and ${t.id} > (select min(f.id) from ${t} f where f.recorded)`,
      limit,
    );
  }
}
