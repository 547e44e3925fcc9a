import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';

import { runTask } from '../../lib/governance/evaluation/queued-evaluation';
import { logger } from '../../lib/logging/logger';
import { jobMessageOf } from '../../lib/queue/sqs-event';

/**
 * Invoked by the evaluation queue (SQS in AWS, asynchronous invocations under serverless offline):
 * each message names an evaluation task, run page by page while the invocation has time. A failed
 * page is reported as a partial batch failure, so the queue delivers that message again and, after
 * its receive limit, moves it to the dead-letter queue.
 */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchItemFailure[] = [];
  for (const record of event.Records ?? []) {
    const message = jobMessageOf(record);
    if (!message) {
      logger.warn({ messageId: record.messageId }, 'an evaluation queue message names no task: dropped');
      continue;
    }
    try {
      await runTask(message.taskId, () => context.getRemainingTimeInMillis());
    } catch (error) {
      logger.warn({ err: error, taskId: message.taskId }, 'an evaluation page failed; the queue delivers it again');
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
