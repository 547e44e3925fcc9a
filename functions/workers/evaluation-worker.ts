import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';

import { governance } from '#lib/governance/composition';
import { runTask } from '#lib/governance/evaluation/task-run';
import { buildEvidence } from '#lib/governance/evidence/evidence-service';
import { logger } from '#lib/logging/logger';
import { handleJobBatch } from '#lib/queue/job-batch';
import { functionHandler } from '#lib/service/function-handler';

/**
 * Invoked by the evaluation queue (SQS in AWS, asynchronous invocations under serverless offline):
 * each message names an evaluation task, run page by page while the invocation has time, or an
 * evidence pack to build (docs/evidence.md). A failed page is reported as a partial batch failure, so
 * the queue delivers that message again and, after its receive limit, moves it to the dead-letter
 * queue. A pack whose build failed is sent again by the sweeper, as its row says.
 */
export const handler = functionHandler((event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
  handleJobBatch(event, {
    handle: async (message) => {
      if ('evidenceId' in message) return buildEvidence(await governance(), message.evidenceId);
      await runTask(await governance(), message.taskId, () => context.getRemainingTimeInMillis());
    },
    failed: (error, message) => logger.warn({ err: error, ...message }, 'an evaluation page failed; the queue delivers it again'),
    unreadable: 'an evaluation queue message names no task: dropped',
  }),
);
