import type { Database } from '#lib/db/client';
import { inTransaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { backoffDelay } from '#lib/platform/backoff';

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
export async function linkPendingRecords(database: Database, { wait }: { wait: boolean }): Promise<number> {
  const outbox = new OutboxRepository(database);
  const chain = new AuditRepository(database);
  let linked = 0;
  for (;;) {
    let batch: Awaited<ReturnType<OutboxRepository['takeDue']>> = [];
    try {
      const count = await inTransaction(database, 'audit chain links', async (tx) => {
        if (!(await chain.takeTurn(tx, wait))) return 0;
        batch = await outbox.takeDue('chain', LINK_BATCH, tx, { retrying: wait });
        await chain.append(
          batch.map(({ payload }) => payload),
          tx,
        );
        if (batch.length > 0)
          await outbox.delivered(
            batch.map(({ id }) => id),
            tx,
          );
        return batch.length;
      });
      linked += count;
      if (count < LINK_BATCH) return linked;
    } catch (error) {
      const reason = (error as Error).message;
      for (const { id, attempts } of batch)
        await outbox.failed(id, attempts + 1, reason, new Date(Date.now() + backoffDelay(attempts + 1, FIRST_RETRY_MS, LONGEST_RETRY_MS)));
      logger.error({ err: error, records: batch.length }, 'could not link audit records to the chain; they stay due and are tried again');
      throw error;
    }
  }
}

/**
 * Before the chain is read (GET /audit, a checkpoint): links what waits, so that the reading holds
 * every record of the calls answered before it. A failure to link is logged (above) and the
 * reading goes on with what is linked.
 */
export async function linkBeforeReading(database: Database): Promise<void> {
  await linkPendingRecords(database, { wait: true }).catch(() => undefined);
}
