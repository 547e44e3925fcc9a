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
  noticeSentAt: row.noticeSentAt?.toISOString() ?? null,
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

  /**
   * Takes the scheduled rollouts whose notice is due (their date less notify_days_before has come)
   * and not sent yet, marking them sent in `tx`: another run does not send them again.
   */
  async takeDueNotices(limit: number, tx: Pick<Transaction, 'update'>): Promise<RolloutRow[]> {
    const t = this.table;
    return (
      tx
        .update(t)
        .set({ noticeSentAt: sql`now()` })
        .where(
          sql`${t.id} in (
          select id from ${t}
          where status = 'scheduled' and notice_sent_at is null and enable_at - make_interval(days => notify_days_before) <= now()
          order by enable_at limit ${limit} for update skip locked)`,
        )
        .returning()
        // An UPDATE returns its rows in the plan's order: by their dates, as they were taken.
        .then((rows) => rows.sort((a, b) => a.enableAt.getTime() - b.enableAt.getTime()))
    );
  }

  /**
   * The resources failing the rollout's version now (the newest recorded result of each in each
   * environment does not pass): at its date their failures count as the version's severity. By owner.
   */
  async failingByOwner(
    rollout: RolloutRow,
    tx: Pick<Transaction, 'execute'>,
  ): Promise<{ owner: string; count: number; resources: { environment: string; resourceId: string; errors: string[] }[] }[]> {
    const results = this.database.tables.evaluationResults;
    const rows = await tx.execute(sql`
      select owner, count(*)::int as count,
        (json_agg(json_build_object('environment', environment, 'resourceId', resource_id, 'errors', errors) order by environment, resource_id))::jsonb as resources
      from (
        select distinct on (r.resource_id, r.environment) r.resource_owner as owner, r.environment, r.resource_id, r.outcome,
          coalesce(r.result -> 'errors', '[]'::jsonb) as errors
        from ${results} r
        where r.recorded and r.entity_id = ${rollout.entityId} and r.entity_version = ${rollout.version}
        order by r.resource_id, r.environment, r.id desc
      ) newest
      where outcome not in ('ok', 'waived') and owner is not null
      group by owner order by owner`);
    return rows as unknown as { owner: string; count: number; resources: { environment: string; resourceId: string; errors: string[] }[] }[];
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
