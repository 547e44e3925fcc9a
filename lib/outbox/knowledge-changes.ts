import { sql } from 'drizzle-orm';

import type { Database, ServiceContext } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';

import { dispatchInBackground } from './background-dispatch';
import { drainInBatches } from './batched-drain';
import { registerLocalSender } from './outbox-dispatcher';
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
export async function announceKnowledgeChange(ctx: ServiceContext, ...sources: ChangedSource[]): Promise<void> {
  registerIndexSender();
  try {
    await new OutboxRepository(ctx.database).enqueue('index', { sources });
    dispatchInBackground(ctx);
  } catch (error) {
    logger.warn({ err: error, sources }, 'could not mark the knowledge index stale; the next change or refresh catches up');
  }
}

/** The same, inside the transaction of the change (a worker's, not a caller's): the caller dispatches after the commit. */
export async function announceKnowledgeChangeIn(database: Database, tx: Pick<Transaction, 'insert'>, ...sources: ChangedSource[]): Promise<void> {
  registerIndexSender();
  await new OutboxRepository(database).enqueue('index', { sources }, tx);
}

/**
 * Marks sources stale now, for the knowledge index's refresher (lib/assistant/knowledge): how the
 * topic `index` is applied, and the start-up tasks' marks (the CUE guide among them). A source
 * marked again during a refresh stays marked after it.
 */
export async function markSourcesStale(
  database: Database,
  sources: readonly { type: string; id: string }[],
  tx: Pick<Transaction, 'insert'> = database.db,
): Promise<void> {
  // Once each: one statement may not update a row twice (the messages of many calls name the same source).
  const distinct = [...new Map(sources.map((source) => [JSON.stringify([source.type, source.id]), source])).values()];
  if (distinct.length === 0) return;
  const t = database.tables.knowledgeStaleSources;
  await tx
    .insert(t)
    .values(distinct.map((source) => ({ sourceType: source.type, sourceId: source.id })))
    .onConflictDoUpdate({ target: [t.sourceType, t.sourceId], set: { markedAt: sql`now()` } });
}

/** Messages of the topic `index` applied in one transaction at most. */
const INDEX_BATCH = 200;

/**
 * The topic `index` in this process: a process that announces changes applies them too; the
 * scheduled dispatcher registers it. The sources of the due messages are marked in batches, one
 * transaction for the messages of many calls (each deploy gate call announces its report's results).
 */
export function registerIndexSender(): void {
  registerLocalSender('index', {
    drain: (database) =>
      drainInBatches(database, 'index', {
        holder: 'knowledge index changes',
        batch: INDEX_BATCH,
        retrying: false,
        firstRetryMs: 5_000,
        longestRetryMs: 15 * 60_000,
        failure: 'could not mark the knowledge index stale; the changes stay due and are tried again',
        apply: (payloads, tx) =>
          markSourcesStale(
            database,
            payloads.flatMap((payload) => (payload.sources ?? []) as ChangedSource[]),
            tx,
          ),
      }),
  });
}
