import { and, asc, desc, gte, lt, lte } from 'drizzle-orm';

import type { Database, ServiceContext } from '#lib/db/client';

import type { ChainedRecord } from './audit-chain';
import { linkBeforeReading } from './audit-chainer';
import { AuditRepository } from './audit-repository';
import type { Checkpoint } from './checkpoint-signature';
import { checkpointOf, takeCheckpoint } from './checkpoints';

/** A run of the chain between two signed checkpoints, around a moment: what an evidence pack carries (docs/evidence.md). */
export interface AuditStretch {
  readonly fromSeq: number;
  readonly toSeq: number;
  /** The newest record recorded at or before the moment (0: none). */
  readonly lastSeqAtMoment: number;
  /** The checkpoint of seq fromSeq - 1; null when the stretch starts the chain. */
  readonly startCheckpoint: Checkpoint | null;
  /** The checkpoint of seq toSeq. */
  readonly endCheckpoint: Checkpoint | null;
  /** Every checkpoint of the stretch, start and end included, in the order they were signed. */
  readonly checkpoints: readonly Checkpoint[];
}

/** Records read per query. */
const PAGE = 5_000;

/**
 * The stretch of the chain up to `at` (its bounds and checkpoints; its records: stretchRecordPages): from the newest checkpoint signed `span` ms or more before it
 * (the chain's first record when there is none) to the first checkpoint at or after the newest record
 * recorded at or before `at`, signed now when none is yet. What waits to be linked is linked first.
 */
export async function auditStretch(ctx: ServiceContext, at: Date, span: number): Promise<AuditStretch> {
  const { database } = ctx;
  await linkBeforeReading(database);
  const { auditRecords: records, auditCheckpoints: checkpoints } = database.tables;
  const [last] = await database.db.select({ seq: records.seq }).from(records).where(lte(records.recordedAt, at)).orderBy(desc(records.seq)).limit(1);
  const lastSeqAtMoment = last?.seq ?? 0;
  if (lastSeqAtMoment === 0) return { fromSeq: 0, toSeq: 0, lastSeqAtMoment, startCheckpoint: null, endCheckpoint: null, checkpoints: [] };

  const [start] = await database.db
    .select()
    .from(checkpoints)
    .where(and(lte(checkpoints.signedAt, new Date(at.getTime() - span)), lt(checkpoints.seq, lastSeqAtMoment)))
    .orderBy(desc(checkpoints.seq), desc(checkpoints.id))
    .limit(1);
  const endOf = async () => {
    const [row] = await database.db
      .select()
      .from(checkpoints)
      .where(gte(checkpoints.seq, lastSeqAtMoment))
      .orderBy(asc(checkpoints.seq), asc(checkpoints.id))
      .limit(1);
    return row ? checkpointOf(row) : undefined;
  };
  const end = (await endOf()) ?? (await takeCheckpoint(ctx, true));
  if (!end) throw new Error('the audit chain has records but none could be signed');
  const fromSeq = start ? start.seq + 1 : 1;

  const within = await database.db
    .select()
    .from(checkpoints)
    .where(and(gte(checkpoints.seq, fromSeq - 1), lte(checkpoints.seq, end.seq)))
    .orderBy(asc(checkpoints.id));
  return {
    fromSeq,
    toSeq: end.seq,
    lastSeqAtMoment,
    startCheckpoint: start ? checkpointOf(start) : null,
    endCheckpoint: end,
    checkpoints: within.map(checkpointOf),
  };
}

/** The records of the stretch, oldest first, a page at a time (a stretch follows the write rate: it is never held whole). */
export async function* stretchRecordPages(database: Database, stretch: AuditStretch): AsyncGenerator<ChainedRecord[]> {
  const repository = new AuditRepository(database);
  for (let after = stretch.fromSeq - 1; after < stretch.toSeq;) {
    const page = (await repository.page({ after }, PAGE)).filter((record) => record.seq <= stretch.toSeq);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1].seq;
  }
}
