import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, type PgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The outbox: messages written with the change that caused them, delivered after (lib/outbox). */
export function outboxTables(schema: PgSchema) {
  /**
   * Messages to outside receivers (audit records, later notifications and events), written first
   * and delivered after, so that a receiver being down never fails a call nor loses a message.
   */
  const outbox = schema.table(
    'outbox',
    {
      id: bigserial('id', { mode: 'number' }).primaryKey(),
      topic: text('topic', { enum: ['audit', 'chain', 'notification', 'event', 'index', 'archive'] }).notNull(),
      payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
      /** Sent with every delivery of the message (header and payload): a receiver that got it already can tell. */
      idempotencyKey: uuid('idempotency_key').notNull().defaultRandom(),
      attempts: integer('attempts').notNull().default(0),
      nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
      lastError: text('last_error'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      deliveredAt: timestamp('delivered_at', { withTimezone: true }),
      /** Given up after outbox.max-attempts: kept for an operator, never claimed again. */
      deadAt: timestamp('dead_at', { withTimezone: true }),
    },
    (table) => [
      index('outbox_due')
        .on(table.topic, table.nextAttemptAt)
        .where(sql`delivered_at is null and dead_at is null`),
      index('outbox_delivered')
        .on(table.deliveredAt)
        .where(sql`delivered_at is not null`),
    ],
  );

  return { outbox };
}
