import { bigserial, jsonb, type PgSchema, text, timestamp } from 'drizzle-orm/pg-core';

/** The audit trail as a hash chain. */
export function auditTables(schema: PgSchema) {
  /**
   * The audit trail as a hash chain: each record holds the SHA-256 of the one before and of its own
   * canonical form with that hash (lib/audit/audit-chain.ts), so a changed, removed or inserted
   * row breaks every hash after it.
   */
  const auditRecords = schema.table('audit_records', {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
    record: jsonb('record').$type<Record<string, unknown>>().notNull(),
    previousHash: text('previous_hash').notNull(),
    hash: text('hash').notNull(),
  });

  return { auditRecords };
}
