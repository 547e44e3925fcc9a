import { and, desc, eq, lte, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';

import type { EntityKind } from '../policies/entity';
import type { RolloutRepresentation } from './rollout';

export type RolloutRow = Database['tables']['rollouts']['$inferSelect'];
type NewRollout = Pick<RolloutRow, 'entityKind' | 'entityId' | 'version' | 'enableAt' | 'notifyDaysBefore' | 'createdBy' | 'approvedBy'>;

export const representRollout = (row: RolloutRow): RolloutRepresentation => ({
  id: row.id,
  kind: row.entityKind,
  policyId: row.entityId,
  version: row.version,
  enableAt: row.enableAt.toISOString(),
  notifyDaysBefore: row.notifyDaysBefore,
  status: row.status,
  error: row.error,
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
  approvedBy: row.approvedBy,
  endedAt: row.endedAt?.toISOString() ?? null,
  endedBy: row.endedBy,
});

export class RolloutRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.rollouts;
  }

  /** Schedules one; undefined when the entity has a scheduled rollout already (one at a time). */
  async schedule(rollout: NewRollout, tx: Pick<Transaction, 'insert'> = this.database.db): Promise<RolloutRow | undefined> {
    const [row] = await tx.insert(this.table).values(rollout).onConflictDoNothing().returning();
    return row;
  }

  /** The entity's scheduled rollout, else its newest one. */
  async current(kind: EntityKind, entityId: string): Promise<RolloutRow | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .select()
      .from(t)
      .where(and(eq(t.entityKind, kind), eq(t.entityId, entityId)))
      .orderBy(sql`${t.status} = 'scheduled' desc`, desc(t.createdAt))
      .limit(1);
    return row;
  }

  /** Ends a scheduled rollout (done, cancelled or failed); undefined when it was not scheduled any more. */
  async end(
    id: string,
    ending: { status: 'done' | 'cancelled' | 'failed'; by: string; error?: string },
    tx: Pick<Transaction, 'update'> = this.database.db,
  ): Promise<RolloutRow | undefined> {
    const t = this.table;
    const [row] = await tx
      .update(t)
      .set({ status: ending.status, endedBy: ending.by, error: ending.error?.slice(0, 2000) ?? null, endedAt: sql`now()` })
      .where(and(eq(t.id, id), eq(t.status, 'scheduled')))
      .returning();
    return row;
  }

  /** Scheduled rollouts whose date has come, by the database's clock, oldest first. */
  async due(limit: number): Promise<RolloutRow[]> {
    const t = this.table;
    return this.database.db
      .select()
      .from(t)
      .where(and(eq(t.status, 'scheduled'), lte(t.enableAt, sql`now()`)))
      .orderBy(t.enableAt)
      .limit(limit);
  }
}
