import { and, asc, eq, gt, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

import type { Database } from '#lib/db/client';
import { deleteSome } from '#lib/db/purge';
import { storableCopy } from '#lib/db/storable-text';
import type { Transaction } from '#lib/db/transaction';

type Row = Database['tables']['outbox']['$inferSelect'];
export type OutboxTopic = Row['topic'];
export type OutboxMessage = Pick<Row, 'id' | 'topic' | 'payload' | 'attempts' | 'idempotencyKey'>;

/**
 * `column = any(ids)` with the ids as one array parameter: the same statement text for any number
 * of ids, so that the database prepares it once per connection (an IN list is a new one per count).
 */
const idIn = (column: AnyPgColumn, ids: readonly number[]) => sql`${column} = any(${`{${ids.map((id) => Number(id)).join(',')}}`}::bigint[])`;

export class OutboxRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.outbox;
  }

  /** Writes a message; pass the transaction of the change it reports so that both commit or neither. */
  async enqueue(topic: OutboxTopic, payload: Record<string, unknown>, tx: Pick<Transaction, 'insert'> = this.database.db): Promise<void> {
    // A message may quote what a caller sent (the name of a refused policy): it must not be lost for it.
    await tx.insert(this.table).values({ topic, payload: storableCopy(payload) });
  }

  /**
   * Writes messages that are not due before `holdMs` (records written ahead of what they record;
   * 0: due now), in one statement; answers their ids in order. `release` makes them due with their
   * final payloads; if nobody does, they are delivered as written once the hold is over.
   */
  async hold(
    messages: ReadonlyArray<{ topic: OutboxTopic; payload: Record<string, unknown> }>,
    holdMs: number,
    tx: Pick<Transaction, 'insert'> = this.database.db,
  ): Promise<number[]> {
    const due = sql`now() + make_interval(secs => ${holdMs / 1000})`;
    const rows = await tx
      .insert(this.table)
      .values(messages.map(({ topic, payload }) => ({ topic, payload: storableCopy(payload), nextAttemptAt: due })))
      .returning({ id: this.table.id });
    // Ids come from one sequence in the order of the rows.
    return rows.map(({ id }) => id).sort((a, b) => a - b);
  }

  /** Gives held messages their final payloads and makes them due now (those not delivered meanwhile), in one statement. */
  async release(released: ReadonlyArray<{ id: number; payload: Record<string, unknown> }>, tx: Pick<Transaction, 'execute'> = this.database.db): Promise<void> {
    if (released.length === 0) return;
    const t = this.table;
    const values = sql.join(
      released.map(({ id, payload }) => sql`(${id}::bigint, ${JSON.stringify(storableCopy(payload))}::jsonb)`),
      sql`, `,
    );
    await tx.execute(sql`
      update ${t} set payload = released.payload, next_attempt_at = now()
      from (values ${values}) as released (id, payload)
      where ${t.id} = released.id and ${t.deliveredAt} is null`);
  }

  /**
   * In `tx`, takes up to `limit` due messages of `topic`, oldest first, locking them until `tx`
   * ends (those another transaction holds are skipped): for a receiver of ours that applies a batch
   * in one transaction and marks it delivered there (`delivered`). With `retrying`, also those that
   * failed and wait for their retry.
   */
  async takeDue(
    topic: OutboxTopic,
    limit: number,
    tx: Pick<Transaction, 'select'>,
    { retrying }: { retrying: boolean },
  ): Promise<Array<Pick<OutboxMessage, 'id' | 'payload' | 'attempts'>>> {
    const t = this.table;
    const due = lte(t.nextAttemptAt, sql`now()`);
    return tx
      .select({ id: t.id, payload: t.payload, attempts: t.attempts })
      .from(t)
      .where(and(eq(t.topic, topic), isNull(t.deliveredAt), isNull(t.deadAt), retrying ? or(due, gt(t.attempts, 0)) : due))
      .orderBy(asc(t.id))
      .limit(limit)
      .for('update', { skipLocked: true });
  }

  /** The topics with a message due now (one short walk of the index of undelivered messages). */
  async dueTopics(): Promise<OutboxTopic[]> {
    const t = this.table;
    const rows = await this.database.db
      .selectDistinct({ topic: t.topic })
      .from(t)
      .where(and(isNull(t.deliveredAt), isNull(t.deadAt), lte(t.nextAttemptAt, sql`now()`)));
    return rows.map((row) => row.topic);
  }

  /**
   * Takes up to `limit` messages of `topic` that are due, oldest first, leasing them for `leaseMs`
   * so that no other dispatcher takes them meanwhile (SKIP LOCKED: dispatchers running at once share the work).
   */
  async claim(topic: OutboxTopic, limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    const t = this.table;
    // An UPDATE returns its rows in no promised order (the plan's): the order they were due in is
    // carried out of the subquery and restored here, so messages go out in the order they were written.
    const claimed = (await this.database.db.execute<OutboxMessage & { dueAt: number }>(sql`
      with due as (
        select ${t.id} as id, ${t.nextAttemptAt} as due_at from ${t}
        where ${t.topic} = ${topic} and ${t.deliveredAt} is null and ${t.deadAt} is null and ${t.nextAttemptAt} <= now()
        order by ${t.nextAttemptAt}, ${t.id}
        limit ${limit}
        for update skip locked
      )
      update ${t} set next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
      from due where ${t.id} = due.id
      returning ${t.id} as id, ${t.topic} as topic, ${t.payload} as payload, ${t.attempts} as attempts,
        ${t.idempotencyKey} as "idempotencyKey", extract(epoch from due.due_at)::float8 as "dueAt"`)) as unknown as Array<OutboxMessage & { dueAt: number }>;
    return claimed.sort((a, b) => a.dueAt - b.dueAt || Number(a.id) - Number(b.id)).map(({ dueAt: _due, ...message }) => message);
  }

  /** Ends the lease of claimed messages that were not tried: due again now. */
  async giveBack(ids: readonly number[]): Promise<void> {
    if (ids.length > 0)
      await this.database.db
        .update(this.table)
        .set({ nextAttemptAt: sql`now()` })
        .where(idIn(this.table.id, ids));
  }

  /** Marks messages delivered (in the transaction that applied them, for receivers that are ours). */
  async delivered(ids: number | readonly number[], tx: Pick<Transaction, 'update'> = this.database.db): Promise<void> {
    const all: readonly number[] = Array.isArray(ids) ? ids : [ids];
    await tx.update(this.table).set({ deliveredAt: new Date(), lastError: null }).where(idIn(this.table.id, all));
  }

  /** A delivery failed: tried again at `retryAt`, or never again when `retryAt` is undefined (dead). */
  async failed(id: number, attempts: number, error: string, retryAt: Date | undefined): Promise<void> {
    await this.database.db
      .update(this.table)
      .set({ attempts, lastError: error.slice(0, 1000), ...(retryAt ? { nextAttemptAt: retryAt } : { deadAt: new Date() }) })
      .where(eq(this.table.id, id));
  }

  /** Deletes up to `limit` messages delivered before `before`; answers how many. */
  purgeDelivered(before: Date, limit: number): Promise<number> {
    return deleteSome(this.database, this.table, lt(this.table.deliveredAt, before), limit);
  }

  async pendingCount(): Promise<number> {
    return (await this.backlog()).pending;
  }

  /** What waits to be delivered (neither delivered nor dead), and how old the oldest of it is, in seconds (0: none). */
  async backlog(): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const [row] = await this.database.sql.unsafe<{ pending: number; oldestAgeSeconds: number }[]>(
      `select count(*)::int as pending, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as "oldestAgeSeconds"
       from "${this.database.schemaName}".outbox where delivered_at is null and dead_at is null`,
    );
    return row;
  }
}
