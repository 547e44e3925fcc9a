import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';

import { logger } from '../logging/logger';
import type { JobQueue } from './job-queue';

/** SendMessageBatch takes at most ten messages. */
const BATCH = 10;

/** The SQS queue of serverless.yml: its redrive policy redelivers failed messages, then dead-letters them. */
export class SqsQueue implements JobQueue {
  readonly redelivers = true;
  private readonly client: SQSClient;

  constructor(
    private readonly queueUrl: string,
    endpoint?: string,
  ) {
    this.client = new SQSClient({ endpoint, maxAttempts: 3 });
  }

  async send(ids: readonly string[]): Promise<string[]> {
    const sent: string[] = [];
    for (let start = 0; start < ids.length; start += BATCH) {
      const chunk = ids.slice(start, start + BATCH);
      try {
        const answer = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: chunk.map((id, index) => ({ Id: String(index), MessageBody: JSON.stringify({ taskId: id }) })),
          }),
        );
        for (const entry of answer.Successful ?? []) sent.push(chunk[Number(entry.Id)]);
        for (const entry of answer.Failed ?? [])
          logger.warn(
            { taskId: chunk[Number(entry.Id)], code: entry.Code, reason: entry.Message },
            'SQS refused an evaluation message; the sweeper sends it again',
          );
      } catch (error) {
        logger.warn({ err: error, count: chunk.length }, 'the evaluation queue could not be reached; the sweeper sends the messages again');
      }
    }
    return sent;
  }
}
