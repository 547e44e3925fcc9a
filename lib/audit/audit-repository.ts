import { and, asc, desc, gt, gte, lt, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { storableCopy } from '#lib/db/storable-text';
import type { Transaction } from '#lib/db/transaction';

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

/** The audit chain in audit_records: appended in turns (lib/audit/audit-chainer.ts), read in order. */
export class AuditRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.auditRecords;
  }

  /**
   * Takes the chain's turn for the rest of `tx` (a transaction-scoped advisory lock keyed by the
   * schema), so that no two chainers link onto the same record: waits for it, or, unless `wait`,
   * answers false at once when another chainer has it.
   */
  async takeTurn(tx: Transaction, wait: boolean): Promise<boolean> {
    const key = sql`hashtext(${`cgp-audit-chain:${this.database.schemaName}`})`;
    if (wait) {
      await tx.execute(sql`select pg_advisory_xact_lock(${key})`);
      return true;
    }
    const [row] = await tx.execute<{ taken: boolean }>(sql`select pg_try_advisory_xact_lock(${key}) as taken`);
    return row.taken;
  }

  /**
   * Appends `records`, in order, as the next links of the chain, in one statement: seq one more
   * than the last, each hashed with the one before. The caller has the turn (takeTurn). recordedAt
   * never goes back from the record before, so a time range is a run of consecutive records.
   */
  async append(records: readonly Record<string, unknown>[], tx: Transaction): Promise<void> {
    if (records.length === 0) return;
    const t = this.table;
    const [last] = await tx.select().from(t).orderBy(desc(t.seq)).limit(1);
    const recordedAt = new Date(last ? Math.max(Date.now(), last.recordedAt.getTime()) : Date.now()).toISOString();
    let previous = last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
    const links = records.map((record) => {
      // What jsonb will hold (no NUL, no lone surrogate, no undefined): the hash must be of what is read back.
      // seq is the one after the last, under the turn: it has no gaps (a sequence's would, after a
      // rolled-back append), so a missing seq is a removed record (`cgp audit verify`).
      const link = { seq: previous.seq + 1, recordedAt, record: storableCopy(record), previousHash: previous.hash };
      const hash = hashOf(link);
      previous = { seq: link.seq, hash };
      return { ...link, hash };
    });
    // One parameter whatever their number: the same statement for every batch (prepared once per connection).
    const rows = JSON.stringify(
      links.map(({ seq, recordedAt: at, record, previousHash, hash }) => ({ seq, recorded_at: at, record, previous_hash: previousHash, hash })),
    );
    await tx.execute(sql`insert into ${t} (seq, recorded_at, record, previous_hash, hash)
      select seq, recorded_at, record, previous_hash, hash
      from jsonb_to_recordset(${rows}::jsonb) as given(seq bigint, recorded_at timestamptz, record jsonb, previous_hash text, hash text)
      order by seq`);
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
