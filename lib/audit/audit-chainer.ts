import type { Database } from '#lib/db/client';
import { drainInBatches } from '#lib/outbox/batched-drain';

import { AuditRepository } from './audit-repository';

/** Records linked in one transaction at most. */
const LINK_BATCH = 500;
const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 60_000;

/**
 * The audit chain's chainer: links the records that wait in the outbox (topic `chain`, due: the
 * record of a call that answered, or one written ahead whose hold ran out) to the chain, oldest
 * message first, up to LINK_BATCH in one transaction, until none waits. No call waits for it: a
 * call only makes its record due (lib/audit/audit-trail.ts).
 *
 * One chainer links at a time (the chain's turn). A reader (`wait`: GET /audit, a checkpoint) waits
 * its turn, so that it reads every record of the calls answered before it; the background chainer
 * leaves the records to the one at work, and to the next run. A batch that fails stays due, its
 * attempt counted, and is tried again after a backoff (a reader does not wait for it): a record is
 * never given up.
 * Answers how many records it linked.
 */
export function linkPendingRecords(database: Database, { wait }: { wait: boolean }): Promise<number> {
  const chain = new AuditRepository(database);
  return drainInBatches(database, 'chain', {
    holder: 'audit chain links',
    batch: LINK_BATCH,
    retrying: wait,
    firstRetryMs: FIRST_RETRY_MS,
    longestRetryMs: LONGEST_RETRY_MS,
    failure: 'could not link audit records to the chain; they stay due and are tried again',
    turn: (tx) => chain.takeTurn(tx, wait),
    apply: (records, tx) => chain.append(records, tx),
  });
}

/**
 * Before the chain is read (GET /audit, a checkpoint): links what waits, so that the reading holds
 * every record of the calls answered before it. A failure to link is logged (above) and the
 * reading goes on with what is linked.
 */
export async function linkBeforeReading(database: Database): Promise<void> {
  await linkPendingRecords(database, { wait: true }).catch(() => undefined);
}
