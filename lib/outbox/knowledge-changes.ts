import { type Database, getDatabase } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';

import { dispatchInBackground } from './background-dispatch';
import { OutboxRepository } from './outbox-repository';

/** What changed: a policy or metric (its id), a resource type (its name), an environment, the results of a report (its id). */
export interface ChangedSource {
  readonly type: 'policy' | 'metric' | 'resource_type' | 'environment' | 'results';
  readonly id: string;
}

/**
 * Tells the assistant's knowledge index that sources changed, through the outbox: delivered in
 * the background, the message marks them stale, and the scheduled refresher embeds what changed.
 * After the change was committed: a failure here is logged and never fails the call.
 */
export async function announceKnowledgeChange(...sources: ChangedSource[]): Promise<void> {
  try {
    await new OutboxRepository(await getDatabase()).enqueue('index', { sources });
    dispatchInBackground();
  } catch (error) {
    logger.warn({ err: error, sources }, 'could not mark the knowledge index stale; the next change or refresh catches up');
  }
}

/** The same, inside the transaction of the change (a worker's, not a caller's): the caller dispatches after the commit. */
export async function announceKnowledgeChangeIn(database: Database, tx: Pick<Transaction, 'insert'>, ...sources: ChangedSource[]): Promise<void> {
  await new OutboxRepository(database).enqueue('index', { sources }, tx);
}
