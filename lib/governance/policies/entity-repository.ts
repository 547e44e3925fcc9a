import { and, type AnyColumn, asc, count, desc, eq, ilike, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { inTransaction, type Transaction } from '#lib/db/transaction';
import type { Pagination } from '#lib/http/pagination';

import { lowerName } from '../../../drizzle/schema/governance';
import { type EntityContent, type EntityFilters, type EntityKind, SEVERITIES } from './entity';
import { ACTIVE_STATUSES, type EntityStatus, STATUSES } from './lifecycle';

export type EntityRow = Database['tables']['governanceEntities']['$inferSelect'];

/** A column's position in a list of its values: severities and statuses sort by rank, not alphabetically. */
const rank = (column: AnyColumn, values: readonly string[]) =>
  sql`array_position(array[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[], ${column}::text)`;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The columns a save sets. */
function contentOf(input: EntityContent) {
  return {
    name: input.name,
    description: input.description,
    resourceType: input.resourceType,
    environment: input.environment,
    severity: input.severity,
    interactionType: input.interactionType,
    tags: input.tags,
    engine: input.engine,
    cueScript: input.cueScript,
    requireConcrete: input.requireConcrete,
    remoteEngineUrl: input.remoteEngineUrl,
    llmRule: input.llmRule,
    trigger: input.trigger,
    timing: input.timing,
    cronExpression: input.cronExpression,
    strategy: input.strategy,
    thresholds: input.thresholds ?? null,
    evaluator: input.evaluator,
    evaluatorReason: input.evaluatorReason,
  };
}

export class EntityRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.governanceEntities;
  }

  async create(kind: EntityKind, input: EntityContent, subject: string, tx: Pick<Transaction, 'insert'> = this.database.db): Promise<EntityRow> {
    const [row] = await tx
      .insert(this.table)
      .values({ id: crypto.randomUUID(), version: 1, kind, latest: true, status: 'draft', ...contentOf(input), createdBy: subject, updatedBy: subject })
      .returning();
    return row;
  }

  async find(kind: EntityKind, id: string, version?: number): Promise<EntityRow | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .select()
      .from(t)
      .where(and(eq(t.kind, kind), eq(t.id, id), version === undefined ? eq(t.latest, true) : eq(t.version, version)));
    return row;
  }

  async versions(kind: EntityKind, id: string): Promise<EntityRow[]> {
    const t = this.table;
    return this.database.db
      .select()
      .from(t)
      .where(and(eq(t.kind, kind), eq(t.id, id)))
      .orderBy(asc(t.version));
  }

  async list(kind: EntityKind, filters: EntityFilters, pagination: Pagination): Promise<{ rows: EntityRow[]; total: number }> {
    const t = this.table;
    const conditions: (SQL | undefined)[] = [eq(t.kind, kind), eq(t.latest, true)];
    if (filters.status?.length) conditions.push(inArray(t.status, filters.status));
    if (filters.resourceType) conditions.push(eq(t.resourceType, filters.resourceType));
    if (filters['id-in']) conditions.push(inArray(t.id, filters['id-in']));
    const environment = filters.environment ?? filters.env;
    if (environment) conditions.push(or(eq(t.environment, environment), isNull(t.environment)));
    if (filters.trigger) conditions.push(eq(t.trigger, filters.trigger));
    if (filters.text) {
      const pattern = `%${escapeLike(filters.text)}%`;
      conditions.push(or(ilike(t.name, pattern), ilike(t.description, pattern)));
    }
    const where = and(...conditions);
    const [rows, [{ total }]] = await Promise.all([
      this.database.db
        .select()
        .from(t)
        .where(where)
        .orderBy(...this.order(filters))
        .limit(pagination.limit)
        .offset(pagination.offset),
      this.database.db.select({ total: count() }).from(t).where(where),
    ]);
    return { rows, total };
  }

  /**
   * `sort-by` in `sort-order`, then by name (the default order) and id, so that pages never overlap.
   * Names sort as people read them, case-insensitively: by `lower(name)` (the database's collation),
   * ties by the name as written, then id. The default order is what the index governance_entities_list
   * holds (drizzle/schema/governance.ts: `lowerName` is its expression, so PostgreSQL reads a page from it).
   */
  private order(filters: EntityFilters): SQL[] {
    const t = this.table;
    const direction = filters['sort-order'] === 'desc' ? desc : asc;
    const key = filters['sort-by'] ?? 'name';
    const byName = lowerName(t.name);
    const keys: Record<typeof key, SQL | AnyColumn> = {
      name: byName,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      severity: rank(t.severity, SEVERITIES),
      status: rank(t.status, STATUSES),
    };
    return [direction(keys[key]), ...(key === 'name' ? [] : [asc(byName)]), asc(t.name), asc(t.id)];
  }

  /** Edits a draft in place; undefined when it is no longer the newest draft (someone moved it meanwhile). */
  async updateDraft(kind: EntityKind, id: string, version: number, input: EntityContent, subject: string): Promise<EntityRow | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .update(t)
      .set({ ...contentOf(input), updatedBy: subject, updatedAt: sql`now()` })
      .where(and(eq(t.kind, kind), eq(t.id, id), eq(t.version, version), eq(t.latest, true), eq(t.status, 'draft')))
      .returning();
    return row;
  }

  /** Writes the next version, a draft, leaving `from` as it is; undefined when `from` is no longer the newest. */
  async createNextVersion(kind: EntityKind, from: EntityRow, input: EntityContent, subject: string): Promise<EntityRow | undefined> {
    const t = this.table;
    return inTransaction(this.database, 'new entity version', async (tx) => {
      const superseded = await tx
        .update(t)
        .set({ latest: false })
        .where(and(eq(t.kind, kind), eq(t.id, from.id), eq(t.version, from.version), eq(t.latest, true)))
        .returning({ version: t.version });
      if (superseded.length === 0) return undefined;
      const [row] = await tx
        .insert(t)
        .values({ id: from.id, version: from.version + 1, kind, latest: true, status: 'draft', ...contentOf(input), createdBy: subject, updatedBy: subject })
        .returning();
      return row;
    });
  }

  /**
   * Moves one version from `from` to `to`. A version becoming active (enabled, grace) disables the
   * entity's other active versions, so that one version of an entity is evaluated at a time.
   * `alongside` writes what must commit with the move, in its transaction. Undefined when the
   * version was not in `from` any more.
   */
  async changeStatus(
    { kind, id, version, from, to, subject }: { kind: EntityKind; id: string; version: number; from: EntityStatus; to: EntityStatus; subject: string },
    alongside?: (tx: Transaction, moved: EntityRow) => Promise<void>,
  ): Promise<EntityRow | undefined> {
    const t = this.table;
    return inTransaction(this.database, 'entity status move', async (tx) => {
      const [row] = await tx
        .update(t)
        .set({ status: to, updatedBy: subject, updatedAt: sql`now()` })
        .where(and(eq(t.kind, kind), eq(t.id, id), eq(t.version, version), eq(t.status, from)))
        .returning();
      if (row && ACTIVE_STATUSES.includes(to)) {
        await tx
          .update(t)
          .set({ status: 'disabled', updatedBy: subject, updatedAt: sql`now()` })
          .where(and(eq(t.id, id), ne(t.version, version), inArray(t.status, [...ACTIVE_STATUSES])));
      }
      if (row && alongside) await alongside(tx, row);
      return row;
    });
  }

  /** Deletes every version of the entity when none is active; 'active' when one is, 'missing' when there is none. `alongside` deletes what goes with it. */
  async delete(kind: EntityKind, id: string, alongside?: (tx: Transaction) => Promise<void>): Promise<'deleted' | 'active' | 'missing'> {
    const t = this.table;
    return inTransaction(this.database, 'entity delete', async (tx) => {
      const versions = await tx
        .select({ status: t.status })
        .from(t)
        .where(and(eq(t.kind, kind), eq(t.id, id)))
        .for('update');
      if (versions.length === 0) return 'missing';
      if (versions.some((v) => ACTIVE_STATUSES.includes(v.status))) return 'active';
      await tx.delete(t).where(and(eq(t.kind, kind), eq(t.id, id)));
      await alongside?.(tx);
      return 'deleted';
    });
  }

  /** The names of entities (any status) written for a resource type. */
  async namesUsingType(resourceType: string, limit = 5): Promise<string[]> {
    const t = this.table;
    const rows = await this.database.db
      .select({ name: t.name })
      .from(t)
      .where(and(eq(t.resourceType, resourceType), eq(t.latest, true)))
      .orderBy(asc(t.name))
      .limit(limit);
    return rows.map((row) => row.name);
  }

  /** The entities Evaluate applies: active versions of the type for the environment, of a trigger and timing. */
  async active(resourceType: string, environment: string, trigger: 'active' | 'passive', timing: 'deployment' | 'runtime'): Promise<EntityRow[]> {
    const t = this.table;
    return this.database.db
      .select()
      .from(t)
      .where(
        and(
          eq(t.resourceType, resourceType),
          inArray(t.status, [...ACTIVE_STATUSES]),
          or(eq(t.environment, environment), isNull(t.environment)),
          eq(t.trigger, trigger),
          eq(t.timing, timing),
        ),
      )
      .orderBy(asc(t.kind), asc(t.name), asc(t.id));
  }

  /** Exact versions, for a report that names them. */
  async findVersions(keys: readonly { id: string; version: number }[], tx: Pick<Transaction, 'select'> = this.database.db): Promise<EntityRow[]> {
    if (keys.length === 0) return [];
    const t = this.table;
    return tx
      .select()
      .from(t)
      .where(or(...keys.map((key) => and(eq(t.id, key.id), eq(t.version, key.version)))));
  }
}
