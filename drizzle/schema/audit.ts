import { bigint, bigserial, jsonb, type PgSchema, text, timestamp } from 'drizzle-orm/pg-core';

/** The audit trail as a hash chain. */
export function auditTables(schema: PgSchema) {
  /**
   * The audit trail as a hash chain: each record holds the SHA-256 of the one before and of its own
   * canonical form with that hash (lib/audit/audit-chain.ts), so a changed, removed or inserted
   * row breaks every hash after it.
   */
  const auditRecords = schema.table('audit_records', {
    /** 1, 2, 3...: the one after the last, given by the append under its lock, so that a gap is a removed record. */
    seq: bigint('seq', { mode: 'number' }).primaryKey(),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
    record: jsonb('record').$type<Record<string, unknown>>().notNull(),
    previousHash: text('previous_hash').notNull(),
    hash: text('hash').notNull(),
  });

  /**
   * Signed checkpoints of the chain (lib/audit/checkpoints.ts): its head (seq and hash) signed with a
   * key the database does not hold, also sent outside it. `cgp audit verify` checks the chain against
   * them, so that one who can write audit_records cannot truncate or rewrite it unnoticed.
   */
  const auditCheckpoints = schema.table('audit_checkpoints', {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    hash: text('hash').notNull(),
    signedAt: timestamp('signed_at', { withTimezone: true }).notNull(),
    keyId: text('key_id').notNull(),
    signature: text('signature').notNull(),
  });

  return { auditRecords, auditCheckpoints };
}
