import { logger } from '#lib/logging/logger';
import { type Fetch, outboundFetch, type OutboundTimeouts } from '#lib/platform/http-client';

import type { JobQueue } from './job-queue';
import { type JobKind, jobMessage, sqsEventOf } from './sqs-event';

/**
 * The queue under serverless offline: each message becomes an asynchronous (`Event`) invocation of
 * the worker through the Lambda endpoint, carrying the SQS-shaped event SQS would deliver, so the
 * worker runs the same code locally and in AWS. Nothing redelivers here: the sweeper does. The
 * invocations take the configured outbound timeouts.
 */
export class LocalLambdaQueue implements JobQueue {
  readonly redelivers = false;
  private readonly fetch: Fetch;

  constructor(
    private readonly endpoint: string,
    private readonly functionName: string,
    timeouts: OutboundTimeouts,
  ) {
    this.fetch = outboundFetch(timeouts);
  }

  async send(ids: readonly string[], kind: JobKind = 'taskId'): Promise<string[]> {
    const url = `${this.endpoint.replace(/\/+$/, '')}/2015-03-31/functions/${encodeURIComponent(this.functionName)}/invocations`;
    const sent: string[] = [];
    for (const id of ids) {
      try {
        const response = await this.fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
          body: JSON.stringify(sqsEventOf([jobMessage(kind, id)])),
        });
        await response.arrayBuffer();
        if (response.status === 202) sent.push(id);
        else logger.warn({ [kind]: id, status: response.status }, 'the local Lambda endpoint refused the evaluation worker invocation');
      } catch (error) {
        logger.warn({ err: error, [kind]: id }, 'the local Lambda endpoint could not be reached; the sweeper sends the message again');
      }
    }
    return sent;
  }
}
