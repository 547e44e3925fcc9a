import { eq, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { storableCopy } from '#lib/db/storable-text';
import type { Transaction } from '#lib/db/transaction';

type Row = Database['tables']['outbox']['$inferSelect'];
export type OutboxTopic = Row['topic'];
export type OutboxMessage = Pick<Row, 'id' | 'topic' | 'payload' | 'attempts'>;

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
   * Takes up to `limit` messages that are due, leasing them for `leaseMs` so that no other
   * dispatcher takes them meanwhile (SKIP LOCKED: dispatchers running at once share the work).
   */
  async claim(limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    const t = this.table;
    return this.database.db.execute<OutboxMessage>(sql`
      update ${t} set next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
      where ${t.id} in (
        select ${t.id} from ${t}
        where ${t.deliveredAt} is null and ${t.nextAttemptAt} <= now()
        order by ${t.id}
        limit ${limit}
        for update skip locked
      )
      returning ${t.id} as id, ${t.topic} as topic, ${t.payload} as payload, ${t.attempts} as attempts`) as unknown as Promise<OutboxMessage[]>;
  }

  async delivered(id: number): Promise<void> {
    await this.database.db.update(this.table).set({ deliveredAt: new Date(), lastError: null }).where(eq(this.table.id, id));
  }

  async failed(id: number, attempts: number, error: string, retryAt: Date): Promise<void> {
    await this.database.db
      .update(this.table)
      .set({ attempts, lastError: error.slice(0, 1000), nextAttemptAt: retryAt })
      .where(eq(this.table.id, id));
  }

  async pendingCount(): Promise<number> {
    const [{ count }] = await this.database.sql.unsafe<{ count: number }[]>(
      `select count(*)::int as count from "${this.database.schemaName}".outbox where delivered_at is null`,
    );
    return count;
  }
}
