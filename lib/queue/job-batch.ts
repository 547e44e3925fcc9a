import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';

import { logger } from '#lib/logging/logger';

import { type JobMessage, jobMessageOf } from './sqs-event';

/**
 * What a queue-invoked handler does with each message: `handle` it; when that throws, `failed` logs
 * why; a message that names no task is logged as `unreadable` says.
 */
export interface JobBatchHandling {
  readonly handle: (message: JobMessage) => Promise<void>;
  readonly failed: (error: unknown, message: JobMessage) => void;
  readonly unreadable: string;
}

/**
 * Handles the messages of an SQS batch one after the other and answers the partial batch failures:
 * the ids of the messages whose `handle` threw, which the queue delivers again. A message that
 * names no task is logged as a warning (its messageId and the `unreadable` text, never its body)
 * and not reported, since delivering it again would not make it readable.
 */
export async function handleJobBatch(event: SQSEvent, { handle, failed, unreadable }: JobBatchHandling): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchItemFailure[] = [];
  for (const record of event.Records ?? []) {
    const message = jobMessageOf(record);
    if (!message) {
      logger.warn({ messageId: record.messageId }, unreadable);
      continue;
    }
    try {
      await handle(message);
    } catch (error) {
      failed(error, message);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
