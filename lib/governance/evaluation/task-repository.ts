import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';

import type { TaskWaiting } from '../../../drizzle/schema/json-columns';

export type TaskRow = Database['tables']['evaluationTasks']['$inferSelect'];

/** What evaluated pages change in their task. */
export interface PagesDone {
  /** The offset the first page started at: a task that has moved on meanwhile (a duplicate run) changes nothing. */
  offset: number;
  /** Where the next page starts, relative to `offset`. */
  advance: number;
  resources: number;
  expectedResources: number | undefined;
  last: boolean;
  resolverMs: number;
  engineMs: number;
  databaseMs: number;
}

const ms = (value: number) => Math.max(0, Math.round(value));

export class TaskRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.evaluationTasks;
  }

  async createAll(reportId: string, environments: readonly string[], tx: Pick<Transaction, 'insert'>): Promise<TaskRow[]> {
    if (environments.length === 0) return [];
    return tx
      .insert(this.table)
      .values(environments.map((environment) => ({ reportId, environment })))
      .returning();
  }

  async find(id: string): Promise<TaskRow | undefined> {
    const [row] = await this.database.db.select().from(this.table).where(eq(this.table.id, id));
    return row;
  }

  async ofReport(reportId: string, tx: Pick<Transaction, 'select'> = this.database.db): Promise<TaskRow[]> {
    return tx.select().from(this.table).where(eq(this.table.reportId, reportId)).orderBy(asc(this.table.environment));
  }

  /** The message naming these tasks reached the queue. */
  async markSent(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ sentAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(inArray(t.id, [...ids]), eq(t.status, 'queued')));
  }

  /**
   * Takes a task to work on it: a queued one, or a running one whose worker stopped renewing its
   * lease. Undefined when it is finished or another worker holds it (a duplicate message).
   */
  async claim(id: string, leaseMs: number): Promise<TaskRow | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .update(t)
      .set({ status: 'running', leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})`, updatedAt: sql`now()` })
      .where(and(eq(t.id, id), or(eq(t.status, 'queued'), and(eq(t.status, 'running'), lt(t.leaseUntil, sql`now()`)))))
      .returning();
    return row;
  }

  /**
   * Records evaluated pages (in the transaction that appends their results): moves the task past
   * them, done after the last page. False when the task was not at those pages any more.
   */
  async pagesDone(id: string, page: PagesDone, leaseMs: number, tx: Pick<Transaction, 'update'>): Promise<boolean> {
    const t = this.table;
    const rows = await tx
      .update(t)
      .set({
        offset: sql`${t.offset} + ${page.advance}`,
        resources: sql`${t.resources} + ${page.resources}`,
        expectedResources: page.expectedResources ?? sql`${t.expectedResources}`,
        status: page.last ? 'done' : 'running',
        attempts: 0,
        lastError: null,
        // A retry of a page read ahead, past these ones, is still waited on.
        waiting: sql`case when (${t.waiting}->>'offset')::int >= ${t.offset} + ${page.advance} then ${t.waiting} end`,
        leaseUntil: page.last ? null : sql`now() + make_interval(secs => ${leaseMs / 1000})`,
        resolverMs: sql`${t.resolverMs} + ${ms(page.resolverMs)}`,
        engineMs: sql`${t.engineMs} + ${ms(page.engineMs)}`,
        databaseMs: sql`${t.databaseMs} + ${ms(page.databaseMs)}`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(t.id, id), eq(t.status, 'running'), eq(t.offset, page.offset)))
      .returning({ id: t.id });
    return rows.length === 1;
  }

  /** The worker stops here and hands the rest on: queued again, to be sent in a new message. */
  async release(id: string): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ status: 'queued', leaseUntil: null, sentAt: null, updatedAt: sql`now()` })
      .where(and(eq(t.id, id), eq(t.status, 'running')));
  }

  /** The current page is waiting for a retry (shown on the running report until a page succeeds). */
  async waiting(id: string, waiting: TaskWaiting): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ waiting })
      .where(and(eq(t.id, id), inArray(t.status, ['queued', 'running'])));
  }

  /**
   * A page failed: queued again for the redelivery of its message, with the reason kept (for the
   * logs and a failed report) and what the running report shows while it waits (`redelivery`:
   * attempt n of `attempts` deliveries in all).
   */
  async attemptFailed(
    id: string,
    reason: string,
    redelivery: { offset: number; reason: string; attempts: number; nextTryAt: Date },
  ): Promise<TaskRow | undefined> {
    const t = this.table;
    const waiting = sql`jsonb_build_object('kind', 'delivery', 'offset', ${redelivery.offset}::int, 'reason', ${redelivery.reason.slice(0, 2000)}::text,
      'attempt', ${t.attempts} + 1, 'attempts', ${redelivery.attempts}::int, 'nextTryAt', ${redelivery.nextTryAt.toISOString()}::text)`;
    const [row] = await this.database.db
      .update(t)
      .set({ status: 'queued', leaseUntil: null, attempts: sql`${t.attempts} + 1`, lastError: reason.slice(0, 2000), waiting, updatedAt: sql`now()` })
      .where(and(eq(t.id, id), eq(t.status, 'running')))
      .returning();
    return row;
  }

  /** The dead-letter path: the task gives up, keeping what its pages before wrote. The ended task, or undefined when it had already ended. */
  async fail(id: string, reason: string, tx: Pick<Transaction, 'update'>): Promise<TaskRow | undefined> {
    const t = this.table;
    const [row] = await tx
      .update(t)
      .set({ status: 'failed', leaseUntil: null, lastError: reason.slice(0, 2000), updatedAt: sql`now()` })
      .where(and(eq(t.id, id), inArray(t.status, ['queued', 'running'])))
      .returning();
    return row;
  }

  /** Queued tasks whose message never reached the queue (it was unreachable), untouched for `graceMs`. */
  async unsent(graceMs: number, limit: number): Promise<string[]> {
    const t = this.table;
    const rows = await this.database.db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.status, 'queued'), isNull(t.sentAt), lt(t.updatedAt, sql`now() - make_interval(secs => ${graceMs / 1000})`)))
      .orderBy(asc(t.updatedAt))
      .limit(limit);
    return rows.map((row) => row.id);
  }

  /**
   * Where no queue redelivers (serverless offline): a task whose worker died (its lease ran out)
   * counts a failed attempt and waits for redelivery like one whose page failed.
   */
  async requeueAbandoned(): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({
        status: 'queued',
        leaseUntil: null,
        attempts: sql`${t.attempts} + 1`,
        lastError: sql`'The worker stopped during the page at offset ' || ${t.offset} || ' (it crashed or ran out of time)'`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(t.status, 'running'), lt(t.leaseUntil, sql`now()`)));
  }

  /** Where no queue redelivers: tasks whose page failed, last sent `retryMs` ago or more, with their failed attempts so far. */
  async awaitingRedelivery(retryMs: number, limit: number): Promise<Pick<TaskRow, 'id' | 'attempts'>[]> {
    const t = this.table;
    return this.database.db
      .select({ id: t.id, attempts: t.attempts })
      .from(t)
      .where(and(eq(t.status, 'queued'), isNotNull(t.sentAt), isNotNull(t.lastError), lt(t.updatedAt, sql`now() - make_interval(secs => ${retryMs / 1000})`)))
      .orderBy(asc(t.updatedAt))
      .limit(limit);
  }
}
