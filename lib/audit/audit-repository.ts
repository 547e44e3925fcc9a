import { and, asc, desc, gt, gte, lt, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { storableCopy } from '#lib/db/storable-text';
import { inTransaction, type Transaction } from '#lib/db/transaction';

import { type ChainedRecord, GENESIS_HASH, hashOf } from './audit-chain';

type Row = Database['tables']['auditRecords']['$inferSelect'];

const linkOf = (row: Row): ChainedRecord => ({
  seq: row.seq,
  recordedAt: row.recordedAt.toISOString(),
  record: row.record,
  previousHash: row.previousHash,
  hash: row.hash,
});

/** Which records to read: recorded in [from, to), after the seq `after`. */
export interface AuditRange {
  readonly from?: Date;
  readonly to?: Date;
  readonly after?: number;
}

/** The audit chain in audit_records: appended one at a time, read in order. */
export class AuditRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.auditRecords;
  }

  /**
   * Appends `record` as the next link of the chain, seq one more than the last. Appends take turns
   * (a transaction-scoped advisory lock keyed by the schema), so no two chain onto the same record. recordedAt never
   * goes back from the record before, so a time range is a run of consecutive records.
   */
  append(record: Record<string, unknown>, tx?: Transaction): Promise<void> {
    return tx ? this.appendIn(tx, record) : inTransaction(this.database, 'audit chain append', (own) => this.appendIn(own, record));
  }

  private async appendIn(tx: Transaction, record: Record<string, unknown>): Promise<void> {
    const t = this.table;
    // What jsonb will hold (no NUL, no lone surrogate, no undefined): the hash must be of what is read back.
    const stored = storableCopy(record);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cgp-audit-chain:${this.database.schemaName}`}))`);
    const [last] = await tx.select().from(t).orderBy(desc(t.seq)).limit(1);
    const now = Date.now();
    const link = {
      // The one after the last, under the lock: seq has no gaps (a sequence's would, after a rolled-back
      // append), so a missing seq is a removed record (`cgp audit verify`).
      seq: (last?.seq ?? 0) + 1,
      recordedAt: new Date(last ? Math.max(now, last.recordedAt.getTime()) : now).toISOString(),
      record: stored,
      previousHash: last?.hash ?? GENESIS_HASH,
    };
    await tx.insert(t).values({ ...link, recordedAt: new Date(link.recordedAt), hash: hashOf(link) });
  }

  /** Up to `limit` records of the range, oldest first. */
  async page(range: AuditRange, limit: number): Promise<ChainedRecord[]> {
    const t = this.table;
    const rows = await this.database.db
      .select()
      .from(t)
      .where(and(gt(t.seq, range.after ?? 0), range.from ? gte(t.recordedAt, range.from) : undefined, range.to ? lt(t.recordedAt, range.to) : undefined))
      .orderBy(asc(t.seq))
      .limit(limit);
    return rows.map(linkOf);
  }
}
