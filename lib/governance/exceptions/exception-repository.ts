import { and, count, desc, eq, getTableColumns, isNull, or, type SQL, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';
import type { Pagination } from '#lib/http/pagination';

import type { ExceptionFilters } from './exception';

type Row = Database['tables']['governanceExceptions']['$inferSelect'];
/** A stored exception, with whether it is active by the database's clock. */
export type ExceptionRow = Row & { active: boolean };
export type NewException = Omit<Row, 'id' | 'createdAt' | 'expiryNoticeAt'>;

/** The key of a waived (entity, resource) pair in the set waivedPairs answers. */
export const pairKey = (entityId: string, resourceId: string) => `${entityId}\u0000${resourceId}`;

export class ExceptionRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.governanceExceptions;
  }
  /**
   * How many resources an exception's pattern matches now: the distinct resources its entity has a
   * latest result for (in `environment`, when given), whose id the LIKE pattern matches.
   */
  async matchingResources(entityId: string, like: string, environment: string | null): Promise<number> {
    const t = this.database.tables.latestResults;
    const [row] = await this.database.db
      .select({ matched: sql<number>`count(distinct ${t.resourceId})::int` })
      .from(t)
      .where(and(eq(t.entityId, entityId), sql`${t.resourceId} like ${like} escape '\\'`, environment === null ? undefined : eq(t.environment, environment)));
    return row?.matched ?? 0;
  }

  private get columns() {
    const t = this.table;
    return { ...getTableColumns(t), active: sql<boolean>`${t.expiresAt} > now()`.as('active') };
  }

  /** `resourceId` is matched by the exception's pattern. */
  private matches(resourceId: SQL | string): SQL {
    return sql`${resourceId} like ${this.table.resourceLike} escape '\\'`;
  }

  async create(exception: NewException, tx: Pick<Transaction, 'insert'> = this.database.db): Promise<ExceptionRow> {
    const [row] = await tx.insert(this.table).values(exception).returning(this.columns);
    return row;
  }

  async find(id: string): Promise<ExceptionRow | undefined> {
    const [row] = await this.database.db.select(this.columns).from(this.table).where(eq(this.table.id, id));
    return row;
  }

  /** Newest first. */
  async list(filters: ExceptionFilters, pagination: Pagination): Promise<{ rows: ExceptionRow[]; total: number }> {
    const t = this.table;
    const conditions: (SQL | undefined)[] = [];
    if (filters.policyId) conditions.push(eq(t.entityId, filters.policyId));
    if (filters.resourceId) conditions.push(this.matches(filters.resourceId));
    if (filters.environment) conditions.push(or(isNull(t.environment), eq(t.environment, filters.environment)));
    if (filters.active !== undefined) conditions.push(filters.active ? sql`${t.expiresAt} > now()` : sql`${t.expiresAt} <= now()`);
    const where = and(...conditions);
    const [rows, [{ total }]] = await Promise.all([
      this.database.db.select(this.columns).from(t).where(where).orderBy(desc(t.createdAt), desc(t.id)).limit(pagination.limit).offset(pagination.offset),
      this.database.db.select({ total: count() }).from(t).where(where),
    ]);
    return { rows, total };
  }

  /** False when no exception has the id. */
  async delete(id: string): Promise<boolean> {
    const deleted = await this.database.db.delete(this.table).where(eq(this.table.id, id)).returning({ id: this.table.id });
    return deleted.length > 0;
  }

  /** Deletes the exceptions of an entity (deleted with it). */
  async forget(entityId: string, tx: Pick<Transaction, 'delete'> = this.database.db): Promise<void> {
    await tx.delete(this.table).where(eq(this.table.entityId, entityId));
  }

  /** The (entity, resource) pairs of `environment` an active exception covers, as pairKey keys. */
  async waivedPairs(entityIds: readonly string[], environment: string, resourceIds: readonly string[]): Promise<Set<string>> {
    if (entityIds.length === 0 || resourceIds.length === 0) return new Set();
    const t = this.table;
    const rows = await this.database.db.execute<{ entity_id: string; resource_id: string }>(
      sql`select distinct ${t.entityId} as entity_id, r.resource_id
        from ${t} join jsonb_array_elements_text(${JSON.stringify([...new Set(resourceIds)])}::jsonb) as r(resource_id) on ${this.matches(sql`r.resource_id`)}
        where ${t.entityId} = any(array(select jsonb_array_elements_text(${JSON.stringify([...new Set(entityIds)])}::jsonb)::uuid))
          and (${t.environment} is null or ${t.environment} = ${environment}) and ${t.expiresAt} > now()`,
    );
    return new Set(rows.map((row) => pairKey(row.entity_id, row.resource_id)));
  }

  /**
   * Marks the active exceptions that expire within `noticeMs` and were not announced yet, and
   * answers them: in the transaction that writes their notices, so each is announced once (a run at
   * the same time waits on the rows, then finds them marked).
   */
  async takeExpiring(noticeMs: number, tx: Transaction): Promise<Row[]> {
    const t = this.table;
    return tx
      .update(t)
      .set({ expiryNoticeAt: sql`now()` })
      .where(and(isNull(t.expiryNoticeAt), sql`${t.expiresAt} > now()`, sql`${t.expiresAt} <= now() + make_interval(secs => ${noticeMs / 1000})`))
      .returning();
  }
}
