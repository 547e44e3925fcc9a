import type { Database } from '#lib/db/client';
import { inTransaction, type Transaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';
import { backoffDelay } from '#lib/platform/backoff';

import { type OutboxMessage, OutboxRepository, type OutboxTopic } from './outbox-repository';

/** How a topic of ours is drained (drainInBatches). */
export interface BatchedDrain {
  /** Names its transactions in leak warnings. */
  readonly holder: string;
  /** Messages applied in one transaction at most. */
  readonly batch: number;
  /** Also the messages that failed and wait for their retry (a reader that must see everything). */
  readonly retrying: boolean;
  readonly firstRetryMs: number;
  readonly longestRetryMs: number;
  /** Logged, with the error, when a batch fails. */
  readonly failure: string;
  /** Taken first in each transaction: false leaves the messages to whoever has it (the audit chain's turn). */
  readonly turn?: (tx: Transaction) => Promise<boolean>;
  /** Applies the payloads of a batch, in order, in the transaction that marks them delivered. */
  readonly apply: (payloads: ReadonlyArray<OutboxMessage['payload']>, tx: Transaction) => Promise<void>;
}

/**
 * Applies the due messages of `topic`, oldest first, in batches: each batch taken (those another
 * transaction holds are skipped), applied and marked delivered in one transaction, until fewer than
 * a batch were due. A few transactions for the messages of many calls, instead of one each. A batch
 * that fails stays due, its attempt counted, and is tried again after a backoff (never given up);
 * the failure is logged and thrown. Answers how many messages were delivered.
 */
export async function drainInBatches(database: Database, topic: OutboxTopic, drain: BatchedDrain): Promise<number> {
  const outbox = new OutboxRepository(database);
  let delivered = 0;
  for (;;) {
    let batch: Awaited<ReturnType<OutboxRepository['takeDue']>> = [];
    try {
      const count = await inTransaction(database, drain.holder, async (tx) => {
        if (drain.turn && !(await drain.turn(tx))) return 0;
        batch = await outbox.takeDue(topic, drain.batch, tx, { retrying: drain.retrying });
        if (batch.length === 0) return 0;
        await drain.apply(
          batch.map(({ payload }) => payload),
          tx,
        );
        await outbox.delivered(
          batch.map(({ id }) => id),
          tx,
        );
        return batch.length;
      });
      delivered += count;
      if (count < drain.batch) return delivered;
    } catch (error) {
      const reason = (error as Error).message;
      for (const { id, attempts } of batch)
        await outbox.failed(id, attempts + 1, reason, new Date(Date.now() + backoffDelay(attempts + 1, drain.firstRetryMs, drain.longestRetryMs)));
      logger.error({ err: error, topic, messages: batch.length }, drain.failure);
      throw error;
    }
  }
}
