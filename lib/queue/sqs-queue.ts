import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';

import { logger } from '#lib/logging/logger';
import { tracedAwsClient } from '#lib/observability/tracing';
import { OutboundTimeoutError, type OutboundTimeouts } from '#lib/platform/http-client';

import type { JobQueue } from './job-queue';

/** SendMessageBatch takes at most ten messages. */
const BATCH = 10;

/**
 * The SQS queue of serverless.yml: its redrive policy redelivers failed messages, then dead-letters
 * them. Its calls take the configured outbound timeouts (connect; read, for the whole call).
 */
export class SqsQueue implements JobQueue {
  readonly redelivers = true;
  private readonly client: SQSClient;
  private readonly host: string;

  constructor(
    private readonly queueUrl: string,
    endpoint: string | undefined,
    private readonly timeouts: OutboundTimeouts,
  ) {
    this.client = tracedAwsClient(
      new SQSClient({
        endpoint,
        maxAttempts: 3,
        requestHandler: { connectionTimeout: timeouts.connectMs, requestTimeout: timeouts.readMs, throwOnRequestTimeout: true },
      }),
    );
    this.host = new URL(endpoint ?? queueUrl).host;
  }

  /** The SDK's TimeoutError (its handler's connect or request timeout) as the OutboundTimeoutError of other outbound calls. */
  private outboundError(error: unknown): unknown {
    if ((error as Error)?.name !== 'TimeoutError') return error;
    const connect = /establish a connection/.test((error as Error).message);
    return new OutboundTimeoutError(this.host, connect ? 'connect' : 'read', connect ? this.timeouts.connectMs : this.timeouts.readMs, { cause: error });
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
        logger.warn({ err: this.outboundError(error), count: chunk.length }, 'the evaluation queue could not be reached; the sweeper sends the messages again');
      }
    }
    return sent;
  }
}
