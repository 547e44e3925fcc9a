import type { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';

import { logger } from '#lib/logging/logger';
import { tracedAwsClient } from '#lib/observability/tracing';
import { OutboundTimeoutError, type OutboundTimeouts } from '#lib/platform/http-client';

import type { JobQueue } from './job-queue';
import { type JobKind, jobMessage } from './sqs-event';

/** SendMessageBatch takes at most ten messages. */
const BATCH = 10;

/**
 * The SQS queue of serverless.yml: its redrive policy redelivers failed messages, then dead-letters
 * them. Its calls take the configured outbound timeouts (connect; read, for the whole call). The SDK's
 * client is loaded by the first send, so that a function that sends nothing (the deploy gate) never
 * compiles it (docs/deployment.md, "Packages").
 */
export class SqsQueue implements JobQueue {
  readonly redelivers = true;
  private client?: Promise<{ client: SQSClient; SendMessageBatchCommand: typeof SendMessageBatchCommand }>;
  private readonly host: string;

  constructor(
    private readonly queueUrl: string,
    private readonly endpoint: string | undefined,
    private readonly timeouts: OutboundTimeouts,
  ) {
    this.host = new URL(endpoint ?? queueUrl).host;
  }

  private sdk() {
    this.client ??= import('@aws-sdk/client-sqs').then(({ SQSClient, SendMessageBatchCommand }) => ({
      SendMessageBatchCommand,
      client: tracedAwsClient(
        new SQSClient({
          endpoint: this.endpoint,
          maxAttempts: 3,
          requestHandler: { connectionTimeout: this.timeouts.connectMs, requestTimeout: this.timeouts.readMs, throwOnRequestTimeout: true },
        }),
      ),
    }));
    return this.client;
  }

  /** The SDK's TimeoutError (its handler's connect or request timeout) as the OutboundTimeoutError of other outbound calls. */
  private outboundError(error: unknown): unknown {
    if ((error as Error)?.name !== 'TimeoutError') return error;
    const connect = /establish a connection/.test((error as Error).message);
    return new OutboundTimeoutError(this.host, connect ? 'connect' : 'read', connect ? this.timeouts.connectMs : this.timeouts.readMs, { cause: error });
  }

  async send(ids: readonly string[], kind: JobKind = 'taskId'): Promise<string[]> {
    const sent: string[] = [];
    const { client, SendMessageBatchCommand } = await this.sdk();
    for (let start = 0; start < ids.length; start += BATCH) {
      const chunk = ids.slice(start, start + BATCH);
      try {
        const answer = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: chunk.map((id, index) => ({ Id: String(index), MessageBody: JSON.stringify(jobMessage(kind, id)) })),
          }),
        );
        for (const entry of answer.Successful ?? []) sent.push(chunk[Number(entry.Id)]);
        for (const entry of answer.Failed ?? [])
          logger.warn(
            { [kind]: chunk[Number(entry.Id)], code: entry.Code, reason: entry.Message },
            'SQS refused an evaluation message; the sweeper sends it again',
          );
      } catch (error) {
        logger.warn({ err: this.outboundError(error), count: chunk.length }, 'the evaluation queue could not be reached; the sweeper sends the messages again');
      }
    }
    return sent;
  }
}
