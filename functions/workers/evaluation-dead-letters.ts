import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

import { governance } from '#lib/governance/composition';
import { deadLetterTask } from '#lib/governance/evaluation/task-sweeper';
import { deadLetterEvidence } from '#lib/governance/evidence/evidence-service';
import { logger } from '#lib/logging/logger';
import { handleJobBatch } from '#lib/queue/job-batch';
import { functionHandler } from '#lib/service/function-handler';

/**
 * Invoked by the dead-letter queue: a message the worker failed on `maxReceiveCount` times. Its
 * task ends as failed with the reason of its last failure, and its report fails once the report's
 * other tasks have ended; the results already written stay. A message that names no task is
 * logged with its messageId and dropped. A message of an evidence pack fails the pack.
 */
export const handler = functionHandler((event: SQSEvent): Promise<SQSBatchResponse> =>
  handleJobBatch(event, {
    handle: async (message) =>
      'evidenceId' in message ? deadLetterEvidence(await governance(), message.evidenceId) : deadLetterTask(await governance(), message.taskId),
    failed: (error, message) => logger.error({ err: error, ...message }, 'a dead-lettered evaluation task could not be marked failed'),
    unreadable: 'a dead-lettered evaluation message names no task: dropped',
  }),
);
