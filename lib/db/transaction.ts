import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';

import type { Database } from './client';
import { holdingConnection } from './leak-detection';
import { preparedStatements } from './prepared-statements';

export type Transaction = Parameters<Parameters<PostgresJsDatabase['transaction']>[0]>[0];

/** Runs `work` in one transaction; `holder` names it in leak warnings. */
export function inTransaction<T>(database: Database, holder: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return holdingConnection(database, holder, () => database.db.transaction(work));
}

/** What work in a pipelined transaction answers: its value, and whether what it wrote is kept. */
export interface PipelinedWork<T> {
  readonly value: T;
  readonly commit: boolean;
}

/**
 * Runs `work` in one transaction on a connection of its own, its `begin` sent with the first
 * statements of `work` instead of waited for (PostgreSQL pipelines them in order): a round trip
 * fewer than inTransaction, for the deploy gate's path, whose statements do not wait for each
 * other. `work` decides at its end whether the transaction commits or rolls back (it may have read
 * something that makes its writes stale); it rolls back as well when `work` throws, and the error is
 * thrown. `tx` works as inTransaction's: every statement through it is in the transaction.
 */
export function inPipelinedTransaction<T>(database: Database, holder: string, work: (tx: Transaction) => Promise<PipelinedWork<T>>): Promise<PipelinedWork<T>> {
  return holdingConnection(database, holder, async () => {
    const reserved = await database.sql.reserve();
    try {
      // A database on this one connection; the statements of a transaction (drizzle's `tx`) are the same calls.
      // drizzle reads the client's options (its parsers, set on the pool's when it opened), which postgres.js gives only to a pool.
      const tx = drizzle(preparedStatements(Object.assign(reserved, { options: database.sql.options }))) as unknown as Transaction;
      // Queued first: the statements of `work` are queued on this connection after it, whenever they are sent.
      const begun = reserved.unsafe('begin').execute();
      let done: PipelinedWork<T>;
      try {
        [, done] = await Promise.all([begun, work(tx)]);
      } catch (error) {
        // Whatever failed (begin included), nothing of the work is kept; the connection goes back clean.
        await reserved.unsafe('rollback').catch(() => undefined);
        throw error;
      }
      await reserved.unsafe(done.commit ? 'commit' : 'rollback');
      return done;
    } finally {
      reserved.release();
    }
  });
}
