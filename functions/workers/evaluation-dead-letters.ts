import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';

import { deadLetterTask } from '../../lib/governance/evaluation/queued-evaluation';
import { logger } from '../../lib/logging/logger';
import { jobMessageOf } from '../../lib/queue/sqs-event';

/**
 * Invoked by the dead-letter queue: a message the worker failed on `maxReceiveCount` times. Its
 * task ends as failed with the reason of its last failure, and its report fails once the report's
 * other tasks have ended; the results already written stay.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchItemFailure[] = [];
  for (const record of event.Records ?? []) {
    const message = jobMessageOf(record);
    if (!message) continue;
    try {
      await deadLetterTask(message.taskId);
    } catch (error) {
      logger.error({ err: error, taskId: message.taskId }, 'a dead-lettered evaluation task could not be marked failed');
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
