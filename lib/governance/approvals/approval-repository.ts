import { and, count, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';

import type { ApprovalFilters, ApprovalStatus } from '#lib/authorization/approval';
import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';
import type { Pagination } from '#lib/http/pagination';

type Row = Database['tables']['approvals']['$inferSelect'];
/** A stored request, its status as it reads now (a pending one past its expiry is `expired`). */
export type ApprovalRow = Omit<Row, 'status'> & { status: ApprovalStatus };
export type NewApproval = Omit<Row, 'id' | 'status' | 'requestedAt' | 'decidedBy' | 'decidedAt' | 'comment' | 'outcome'>;

export class ApprovalRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.approvals;
  }

  private get columns() {
    const t = this.table;
    return {
      ...getTableColumns(t),
      status: sql<ApprovalStatus>`case when ${t.status} = 'pending' and ${t.expiresAt} <= now() then 'expired' else ${t.status} end`.as('status'),
    };
  }

  private statusIs(status: ApprovalStatus): SQL {
    const t = this.table;
    if (status === 'expired') return sql`${t.status} = 'pending' and ${t.expiresAt} <= now()`;
    if (status === 'pending') return sql`${t.status} = 'pending' and ${t.expiresAt} > now()`;
    return eq(t.status, status);
  }

  async create(approval: NewApproval, tx: Pick<Transaction, 'insert'> = this.database.db): Promise<ApprovalRow> {
    const [row] = await tx.insert(this.table).values(approval).returning(this.columns);
    return row;
  }

  /**
   * Ends the pending requests about an entity that is being deleted (in `tx`, the deletion's): they
   * expire now, with the reason as their comment, instead of waiting for their expiry.
   */
  async endForDeleted(entityId: string, tx: Pick<Transaction, 'update'>): Promise<void> {
    const t = this.table;
    await tx
      .update(t)
      .set({ expiresAt: sql`now()`, comment: 'Ended: what it concerns was deleted' })
      .where(and(eq(t.entityId, entityId), this.statusIs('pending')));
  }

  async find(id: string): Promise<ApprovalRow | undefined> {
    const [row] = await this.database.db.select(this.columns).from(this.table).where(eq(this.table.id, id));
    return row;
  }

  /** A pending request of this kind for the entity, if one is waiting. */
  async pendingFor(kind: Row['kind'], entityId: string): Promise<ApprovalRow | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .select(this.columns)
      .from(t)
      .where(and(eq(t.kind, kind), eq(t.entityId, entityId), this.statusIs('pending')))
      .limit(1);
    return row;
  }

  /** How many requests wait for a decision (pending, not expired). */
  async pendingCount(): Promise<number> {
    const [{ total }] = await this.database.db.select({ total: count() }).from(this.table).where(this.statusIs('pending'));
    return total;
  }

  /** Newest first. */
  async list(filters: ApprovalFilters, pagination: Pagination): Promise<{ rows: ApprovalRow[]; total: number }> {
    const t = this.table;
    const where = and(filters.status ? this.statusIs(filters.status) : undefined, filters.kind ? eq(t.kind, filters.kind) : undefined);
    const [rows, [{ total }]] = await Promise.all([
      this.database.db.select(this.columns).from(t).where(where).orderBy(desc(t.requestedAt), desc(t.id)).limit(pagination.limit).offset(pagination.offset),
      this.database.db.select({ total: count() }).from(t).where(where),
    ]);
    return { rows, total };
  }

  /**
   * Records the decision of a request that is still pending and not expired, in the caller's
   * transaction (the one that applies an approval); undefined when it is not (decided meanwhile).
   */
  async decide(
    id: string,
    decision: { status: 'approved' | 'rejected'; decidedBy: string; comment: string | null; outcome: Record<string, unknown> | null },
    tx: Pick<Transaction, 'update'> = this.database.db,
  ): Promise<ApprovalRow | undefined> {
    const t = this.table;
    const [row] = await tx
      .update(t)
      // A decided request needs no secret any more (a model configuration's key, now stored or refused).
      .set({ ...decision, sealed: null, decidedAt: sql`now()` })
      .where(and(eq(t.id, id), this.statusIs('pending')))
      .returning(this.columns);
    return row;
  }
}
