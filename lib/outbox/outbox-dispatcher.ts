import { KnowledgeChunkRepository } from '#lib/assistant/knowledge/knowledge-chunk-repository';
import type { Database } from '#lib/db/client';
import { logger } from '#lib/logging/logger';
import { backoffDelay } from '#lib/platform/backoff';
import { callPlatform } from '#lib/platform/platform-client';
import type { Settings } from '#lib/settings/index';

import type { ChangedSource } from './knowledge-changes';
import { type OutboxMessage, OutboxRepository, type OutboxTopic } from './outbox-repository';

/** How each topic reaches its receiver (the database of the outbox at hand, for receivers that are ours). */
export type Senders = Record<OutboxTopic, (payload: Record<string, unknown>, database: Database) => Promise<void>>;

const BATCH = 100;
/** A claimed message is someone's for this long; a dispatcher that dies mid-way gives it back then. */
const LEASE_MS = 120_000;
const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 15 * 60_000;

export function platformSenders(settings: Settings): Senders {
  return {
    audit: async (payload) => {
      await callPlatform(settings, `${settings.platformServices.audit.auditPath.replace(/\/+$/, '')}/audit`, { method: 'POST', body: payload });
    },
    notification: async (payload) => {
      if (!settings.notification.url) throw new Error('notification.url is not set');
      await callPlatform(settings, '', { method: 'POST', body: payload, url: settings.notification.url, secret: settings.notification.secret });
    },
    event: async (payload) => {
      if (!settings.events.eventsBackendBaseUrl) throw new Error('events.events-backend-base-url is not set');
      await callPlatform(settings, '', {
        method: 'POST',
        body: payload,
        url: settings.events.eventsBackendBaseUrl,
        secret: settings.platformServices.httpSecret,
      });
    },
    index: async (payload, database) => {
      await new KnowledgeChunkRepository(database).markStale((payload.sources ?? []) as ChangedSource[]);
    },
  };
}

async function deliver(database: Database, repository: OutboxRepository, senders: Senders, message: OutboxMessage): Promise<boolean> {
  try {
    await senders[message.topic](message.payload, database);
    await repository.delivered(message.id);
    return true;
  } catch (error) {
    const attempts = message.attempts + 1;
    const retryInMs = backoffDelay(attempts, FIRST_RETRY_MS, LONGEST_RETRY_MS);
    const reason = (error as Error).message;
    await repository.failed(message.id, attempts, reason, new Date(Date.now() + retryInMs));
    logger.warn({ topic: message.topic, id: message.id, attempts, retryInMs, reason }, 'outbox message not delivered; it will be retried');
    return false;
  }
}

/** Delivers what is due, batch after batch, until nothing due is left. Returns the counts. */
export async function dispatchOutbox(database: Database, senders: Senders): Promise<{ delivered: number; failed: number }> {
  const repository = new OutboxRepository(database);
  const counts = { delivered: 0, failed: 0 };
  for (;;) {
    const batch = await repository.claim(BATCH, LEASE_MS);
    if (batch.length === 0) return counts;
    for (const message of batch) counts[(await deliver(database, repository, senders, message)) ? 'delivered' : 'failed']++;
    if (counts.failed > 0) return counts;
  }
}
