import type { Database } from '#lib/db/client';
import { logger } from '#lib/logging/logger';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { backoffDelay } from '#lib/platform/backoff';
import { callPlatform } from '#lib/platform/platform-client';
import type { Settings } from '#lib/settings/index';

import { putArchiveObject } from './archive-bucket';
import { type OutboxMessage, OutboxRepository, type OutboxTopic } from './outbox-repository';

type Payload = Record<string, unknown>;

/**
 * How a topic reaches its receiver: over HTTP, with the message's idempotency key (a receiver
 * may get a message twice: a dispatcher that dies after sending, before marking it); or into
 * tables of ours by a receiver that takes its due messages itself, in batches (exactly once).
 */
type Sender = { readonly remote: (payload: Payload, idempotencyKey: string) => Promise<void> } | { readonly drain: LocalDrain };

/**
 * A topic of ours applied in batches by a receiver that takes its due messages itself, each batch
 * in the transaction that marks it delivered (lib/outbox/batched-drain.ts: the audit chain, the
 * knowledge index's changes); answers how many it delivered.
 */
export type LocalDrain = (database: Database) => Promise<number>;

/**
 * What delivering the outbox needs: a sender per topic (a topic without one waits for a dispatcher
 * that has it), when to give a message up, and how long one delivery may take at worst.
 */
export interface OutboxDelivery {
  readonly senders: Partial<Record<OutboxTopic, Sender>>;
  readonly maxAttempts: number;
  readonly deliveryTimeoutMs: number;
}

/** Messages claimed at a time, per topic. */
const BATCH = 10;
/** A topic's run stops after this many failures in a row (its receiver is down); other topics go on. */
const FAILURES_IN_A_ROW = 3;
const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 15 * 60_000;

/** The header every remote delivery carries, with the `idempotencyKey` of the payload. */
const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

const localSenders = new Map<OutboxTopic, Sender>();

/**
 * Registers how this process applies a topic of ours (`chain`: lib/audit/chain-sender.ts, by every
 * HTTP function; `index`: knowledge-changes.ts, by a process that announces a change). A process
 * that has not registered a topic leaves its messages to one that has: the scheduled dispatcher
 * registers every one.
 */
export function registerLocalSender(topic: OutboxTopic, sender: { drain: LocalDrain }): void {
  localSenders.set(topic, sender);
}

/** The senders of this process: the platform's receivers over HTTP, and the local topics registered. */
export function platformDelivery(settings: Settings): OutboxDelivery {
  const post =
    (path: string, target: { url?: string; secret?: string } = {}) =>
    async (payload: Payload, idempotencyKey: string) => {
      await callPlatform(settings, path, {
        method: 'POST',
        body: { ...payload, idempotencyKey },
        headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
        ...target,
      });
    };
  return {
    senders: {
      ...Object.fromEntries(localSenders),
      audit: { remote: post(`${settings.platformServices.audit.auditPath.replace(/\/+$/, '')}/audit`) },
      notification: {
        remote: async (payload, key) => {
          if (!settings.notification.url) throw new Error('notification.url is not set');
          await post('', { url: settings.notification.url, secret: settings.notification.secret })(payload, key);
        },
      },
      // The audit chain's checkpoints copied to their Object Lock bucket (lib/audit/checkpoints.ts).
      archive: {
        remote: async (payload) => {
          if (!settings.auditChain.checkpointBucket) throw new Error('audit-chain.checkpoint-bucket is not set');
          await putArchiveObject(settings.auditChain.checkpointBucket, payload);
        },
      },
      event: {
        remote: async (payload, key) => {
          if (!settings.events.eventsBackendBaseUrl) throw new Error('events.events-backend-base-url is not set');
          await post('', { url: settings.events.eventsBackendBaseUrl, secret: settings.platformServices.httpSecret })(payload, key);
        },
      },
    },
    maxAttempts: settings.outbox.maxAttempts,
    deliveryTimeoutMs: settings.http.clientConnectTimeout + settings.http.clientReadTimeout,
  };
}

async function deliver(
  repository: OutboxRepository,
  delivery: OutboxDelivery,
  sender: Exclude<Sender, { drain: LocalDrain }>,
  message: OutboxMessage,
): Promise<boolean> {
  try {
    await sender.remote(message.payload, message.idempotencyKey);
    await repository.delivered(message.id);
    return true;
  } catch (error) {
    const attempts = message.attempts + 1;
    const reason = (error as Error).message;
    const where = { topic: message.topic, id: message.id, idempotencyKey: message.idempotencyKey, attempts, reason };
    if (attempts >= delivery.maxAttempts) {
      await repository.failed(message.id, attempts, reason, undefined);
      logger.error(where, `outbox message given up after ${attempts} attempts (outbox.max-attempts): it stays in the outbox as dead`);
    } else {
      const retryInMs = backoffDelay(attempts, FIRST_RETRY_MS, LONGEST_RETRY_MS);
      await repository.failed(message.id, attempts, reason, new Date(Date.now() + retryInMs));
      logger.warn({ ...where, retryInMs }, 'outbox message not delivered; it will be retried');
    }
    return false;
  }
}

/** Delivers the due messages of one topic, batch after batch, until none is due, its receiver fails in a row, or `until`. */
async function dispatchTopic(
  database: Database,
  delivery: OutboxDelivery,
  topic: OutboxTopic,
  sender: Exclude<Sender, { drain: LocalDrain }>,
  until: number,
  counts: { delivered: number; failed: number },
) {
  const repository = new OutboxRepository(database);
  // A batch is the claimer's for longer than its deliveries can take, so no other dispatcher sends it meanwhile.
  const leaseMs = BATCH * delivery.deliveryTimeoutMs + 60_000;
  let failuresInARow = 0;
  const ofTopic = { delivered: 0, failed: 0 };
  try {
    while (Date.now() < until) {
      const batch = await repository.claim(topic, BATCH, leaseMs);
      if (batch.length === 0) return;
      for (const message of batch) {
        const delivered = await deliver(repository, delivery, sender, message);
        counts[delivered ? 'delivered' : 'failed']++;
        ofTopic[delivered ? 'delivered' : 'failed']++;
        failuresInARow = delivered ? 0 : failuresInARow + 1;
        // The rest of the batch is given back at once, to the next run.
        if (failuresInARow >= FAILURES_IN_A_ROW) return repository.giveBack(batch.slice(batch.indexOf(message) + 1).map(({ id }) => id));
      }
    }
  } finally {
    recordMetric('OutboxDelivered', MetricUnit.Count, ofTopic.delivered, { topic });
    recordMetric('OutboxFailed', MetricUnit.Count, ofTopic.failed, { topic });
  }
}

/**
 * Delivers what is due, every topic at once (a receiver that is down or slow holds up only its
 * own topic), until nothing due is left or `until` (epoch ms) passes. Returns the counts.
 */
export async function dispatchOutbox(
  database: Database,
  delivery: OutboxDelivery,
  until = Number.POSITIVE_INFINITY,
): Promise<{ delivered: number; failed: number }> {
  const counts = { delivered: 0, failed: 0 };
  // Only the topics with work: most runs (one after each call) have one or none.
  const topics = await new OutboxRepository(database).dueTopics();
  await Promise.all(
    topics.flatMap((topic) => {
      const sender = delivery.senders[topic];
      if (!sender) return [];
      return 'drain' in sender ? [drainTopic(database, topic, sender.drain, counts)] : [dispatchTopic(database, delivery, topic, sender, until, counts)];
    }),
  );
  return counts;
}

/** A topic whose receiver takes its messages itself; its failure is its own (it keeps them due and logs why). */
async function drainTopic(database: Database, topic: OutboxTopic, drain: LocalDrain, counts: { delivered: number; failed: number }) {
  const delivered = await drain(database).catch(() => {
    counts.failed++;
    return 0;
  });
  counts.delivered += delivered;
  recordMetric('OutboxDelivered', MetricUnit.Count, delivered, { topic });
}
