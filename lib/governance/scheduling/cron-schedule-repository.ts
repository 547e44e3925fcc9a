import { and, asc, eq, isNotNull, lte, or, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';

import { nextCronRun } from '../policies/cron-expression';
import type { EntityRow } from '../policies/entity-repository';

export type CronScheduleRow = Database['tables']['cronSchedules']['$inferSelect'];

/** A due schedule, with the version it runs when that version is still enabled (else undefined). */
export interface DueSchedule {
  schedule: CronScheduleRow;
  entity: EntityRow | undefined;
}

export class CronScheduleRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.cronSchedules;
  }

  /** The versions that run on a schedule: enabled, timing runtime, with a cron expression and an engine (passive ones are not run). */
  private executable() {
    const e = this.database.tables.governanceEntities;
    return and(eq(e.status, 'enabled'), eq(e.timing, 'runtime'), isNotNull(e.cronExpression), isNotNull(e.engine));
  }

  async find(entityId: string): Promise<CronScheduleRow | undefined> {
    const [row] = await this.database.db.select().from(this.table).where(eq(this.table.entityId, entityId));
    return row;
  }

  async count(): Promise<number> {
    return this.database.db.$count(this.table);
  }

  /**
   * Makes the entity's schedule follow its versions (in the transaction that changed them): the
   * enabled executable cron version is scheduled by its expression (a schedule whose expression is
   * unchanged keeps its next run); an entity with none is unscheduled. 'scheduled' or 'unscheduled'.
   */
  async follow(entityId: string, timeZone: string, tx: Transaction): Promise<'scheduled' | 'unscheduled'> {
    const t = this.table;
    const e = this.database.tables.governanceEntities;
    const [enabled] = await tx
      .select()
      .from(e)
      .where(and(eq(e.id, entityId), this.executable()));
    const nextRunAt = enabled && nextCronRun(enabled.cronExpression as string, new Date(), timeZone);
    if (!enabled || !nextRunAt) {
      await tx.delete(t).where(eq(t.entityId, entityId));
      return 'unscheduled';
    }
    await tx
      .insert(t)
      .values({ entityId, entityVersion: enabled.version, cronExpression: enabled.cronExpression as string, nextRunAt })
      .onConflictDoUpdate({
        target: t.entityId,
        set: {
          entityVersion: enabled.version,
          cronExpression: sql`excluded.cron_expression`,
          nextRunAt: sql`case when ${t.cronExpression} = excluded.cron_expression then ${t.nextRunAt} else excluded.next_run_at end`,
          updatedAt: sql`now()`,
        },
      });
    return 'scheduled';
  }

  /** reload-on-start: every enabled executable cron entity scheduled, every other schedule removed. */
  async reload(timeZone: string, tx: Transaction): Promise<{ scheduled: number; unscheduled: number }> {
    const e = this.database.tables.governanceEntities;
    const executable = await tx.selectDistinct({ id: e.id }).from(e).where(this.executable());
    const scheduled = await tx.select({ id: this.table.entityId }).from(this.table);
    const counts = { scheduled: 0, unscheduled: 0 };
    for (const id of new Set([...executable, ...scheduled].map((row) => row.id))) counts[await this.follow(id, timeZone, tx)]++;
    return counts;
  }

  async remove(entityId: string, tx: Pick<Transaction, 'delete'> = this.database.db): Promise<void> {
    await tx.delete(this.table).where(eq(this.table.entityId, entityId));
  }

  /**
   * Takes the schedules due at `now` (oldest first), locking them until the transaction ends;
   * those another dispatcher holds are skipped, so two dispatchers never take the same one.
   */
  async claimDue(now: Date, limit: number, tx: Transaction): Promise<DueSchedule[]> {
    const t = this.table;
    const e = this.database.tables.governanceEntities;
    const due = await tx.select().from(t).where(lte(t.nextRunAt, now)).orderBy(asc(t.nextRunAt)).limit(limit).for('update', { skipLocked: true });
    if (due.length === 0) return [];
    const enabled = await tx
      .select()
      .from(e)
      .where(and(this.executable(), or(...due.map((schedule) => and(eq(e.id, schedule.entityId), eq(e.version, schedule.entityVersion))))));
    return due.map((schedule) => ({ schedule, entity: enabled.find((entity) => entity.id === schedule.entityId) }));
  }

  /** A run was recorded: the schedule moves on to `nextRunAt`. */
  async ran(entityId: string, now: Date, nextRunAt: Date, reportId: string, tx: Pick<Transaction, 'update'>): Promise<void> {
    const t = this.table;
    await tx
      .update(t)
      .set({ nextRunAt, lastRunAt: now, lastReportId: reportId, updatedAt: sql`now()` })
      .where(eq(t.entityId, entityId));
  }
}
