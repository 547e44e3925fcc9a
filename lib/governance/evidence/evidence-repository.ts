import { and, asc, between, desc, eq, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { inTransaction, type Transaction } from '#lib/db/transaction';

/** A pack's row (its zip is in evidence_pack_parts). */
export type EvidenceRow = Database['tables']['evidencePacks']['$inferSelect'];

/** The bytes of a part of a zip: the most an answer of GET /evidence/{id}/pack carries, under Lambda's 6 MB once in base64. */
export const PACK_PART_BYTES = 4 * 1024 * 1024;

/** The packs asked for: their lifecycle (pending, running, completed, failed) and their zips. */
export class EvidenceRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.evidencePacks;
  }

  async create(pack: { at: Date; environments: string[] | null; resourceTypes: string[] | null; requestedBy: string }): Promise<EvidenceRow> {
    const [row] = await this.database.db.insert(this.table).values(pack).returning();
    return row;
  }

  async find(id: string): Promise<EvidenceRow | undefined> {
    const [row] = await this.database.db.select().from(this.table).where(eq(this.table.id, id));
    return row;
  }

  async list(limit: number, offset: number): Promise<{ rows: EvidenceRow[]; total: number }> {
    const t = this.table;
    const [rows, [{ total }]] = await Promise.all([
      this.database.db.select().from(t).orderBy(desc(t.requestedAt), desc(t.id)).limit(limit).offset(offset),
      this.database.db.select({ total: sql<number>`count(*)::int` }).from(t),
    ]);
    return { rows, total };
  }

  /** Bytes `first` to `last` of the zip the build of attempt `attempt` made, read from the parts that hold them. */
  async packBytes(id: string, attempt: number, first: number, last: number): Promise<Buffer> {
    const p = this.database.tables.evidencePackParts;
    const [from, to] = [Math.floor(first / PACK_PART_BYTES), Math.floor(last / PACK_PART_BYTES)];
    const rows = await this.database.db
      .select({ bytes: p.bytes })
      .from(p)
      .where(and(eq(p.packId, id), eq(p.attempt, attempt), between(p.part, from, to)))
      .orderBy(asc(p.part));
    return Buffer.concat(rows.map((row) => row.bytes)).subarray(first - from * PACK_PART_BYTES, last - from * PACK_PART_BYTES + 1);
  }

  /** Stores part `part` of the zip the build of attempt `attempt` is writing. */
  async addPart(id: string, attempt: number, part: number, bytes: Buffer): Promise<void> {
    await this.database.db.insert(this.database.tables.evidencePackParts).values({ packId: id, attempt, part, bytes });
  }

  /** Deletes the parts of the builds of the pack but attempt `kept` (all with none). */
  private async forgetParts(id: string, kept: number | undefined, tx: Pick<Transaction, 'delete'> = this.database.db): Promise<void> {
    const p = this.database.tables.evidencePackParts;
    await tx.delete(p).where(and(eq(p.packId, id), kept === undefined ? undefined : ne(p.attempt, kept)));
  }

  /** Marks the packs whose message reached the queue. */
  async markSent(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.database.db
      .update(this.table)
      .set({ sentAt: sql`now()` })
      .where(inArray(this.table.id, [...ids]));
  }

  /**
   * Takes the pack for a build until `leaseMs` from now: a pending one, or a running one whose build
   * stopped (its lease ran out). Undefined when it is not to be built (completed, failed, held by another build).
   */
  async claim(id: string, leaseMs: number): Promise<EvidenceRow | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .update(t)
      .set({ status: 'running', attempts: sql`${t.attempts} + 1`, leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
      .where(and(eq(t.id, id), or(eq(t.status, 'pending'), and(eq(t.status, 'running'), lt(t.leaseUntil, sql`now()`)))))
      .returning();
    return row;
  }

  /**
   * The build of attempt `attempt` ended: its zip (in its parts) is the pack's, and the parts of other
   * attempts go. False when another build has the pack since (this one outlived its lease).
   */
  async complete(id: string, attempt: number, pack: { sha256: string; size: number; summary: Record<string, number> }): Promise<boolean> {
    const t = this.table;
    return inTransaction(this.database, 'evidence pack completed', async (tx) => {
      const done = await tx
        .update(t)
        .set({ status: 'completed', sha256: pack.sha256, size: pack.size, summary: pack.summary, completedAt: sql`now()`, leaseUntil: null, error: null })
        .where(and(eq(t.id, id), eq(t.status, 'running'), eq(t.attempts, attempt)))
        .returning({ id: t.id });
      if (done.length > 0) await this.forgetParts(id, attempt, tx);
      return done.length > 0;
    });
  }

  /**
   * The build of attempt `attempt` failed: `failed` for good once it was tried `maxAttempts` times, else
   * pending again, to be sent again by the sweeper. Answers the status it now has; undefined when another
   * build has the pack since (this one outlived its lease).
   */
  async attemptFailed(id: string, attempt: number, reason: string, maxAttempts: number): Promise<'failed' | 'pending' | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .update(t)
      .set({
        status: sql`case when ${t.attempts} >= ${maxAttempts} then 'failed' else 'pending' end`,
        error: reason.slice(0, 2000),
        leaseUntil: null,
        sentAt: null,
      })
      .where(and(eq(t.id, id), eq(t.status, 'running'), eq(t.attempts, attempt)))
      .returning({ status: t.status });
    if (row) await this.forgetParts(id, undefined);
    return row?.status as 'failed' | 'pending' | undefined;
  }

  /** The dead-letter path: the pack's message kept failing; it fails with its last reason, unless it completed meanwhile. */
  async fail(id: string, reason: string): Promise<void> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({ status: 'failed', error: sql`coalesce(${t.error}, ${reason})`, leaseUntil: null })
      .where(and(eq(t.id, id), inArray(t.status, ['pending', 'running'])));
  }

  /**
   * The packs to send (again): pending ones whose message did not reach the queue (or whose last
   * attempt failed), or reached it `staleMs` ago or more and no build took it (an invocation lost
   * before its claim: the local queue redelivers nothing); before that, running ones whose build
   * stopped without an end (a worker that died or ran out of time) are pending again, or failed once
   * tried `maxAttempts` times.
   */
  async toSend(limit: number, maxAttempts: number, staleMs: number): Promise<string[]> {
    const t = this.table;
    await this.database.db
      .update(t)
      .set({
        status: sql`case when ${t.attempts} >= ${maxAttempts} then 'failed' else 'pending' end`,
        error: sql`coalesce(${t.error}, 'its build stopped before it ended (its worker ran out of time or memory)')`,
        leaseUntil: null,
        sentAt: null,
      })
      .where(and(eq(t.status, 'running'), lt(t.leaseUntil, sql`now()`)));
    const rows = await this.database.db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.status, 'pending'), or(isNull(t.sentAt), lt(t.sentAt, sql`now() - make_interval(secs => ${staleMs / 1000})`))))
      .orderBy(t.requestedAt)
      .limit(limit);
    return rows.map((row) => row.id);
  }
}
