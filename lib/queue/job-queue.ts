import { LocalLambdaQueue } from './local-lambda-queue';
import { SqsQueue } from './sqs-queue';

/**
 * The port through which evaluation work reaches the queue-invoked worker. A message carries the
 * id of a job row in PostgreSQL (the row is the truth; the message only says "look at it").
 */
export interface JobQueue {
  /** Sends one message per id; answers the ids that reached the queue (the others are to be sent again). */
  send(ids: readonly string[]): Promise<string[]>;
  /**
   * True when the queue itself redelivers a message the worker reported as failed and moves it to
   * the dead-letter queue after its receive limit (SQS). False locally: the sweeper does both.
   */
  readonly redelivers: boolean;
}

/** How many times a message is received before it goes to the dead-letter path (serverless.yml's maxReceiveCount). */
export function maxReceives(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.EVALUATION_QUEUE_MAX_RECEIVES);
  return Number.isInteger(value) && value > 0 ? value : 5;
}

/** How long SQS waits before it delivers a failed message again (serverless.yml's VisibilityTimeout). */
export function queueVisibilityMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.EVALUATION_QUEUE_VISIBILITY_SECONDS);
  return (Number.isInteger(value) && value > 0 ? value : 360) * 1000;
}

let shared: JobQueue | undefined;

/**
 * In AWS: the SQS queue of serverless.yml (EVALUATION_QUEUE_URL). Under serverless offline and in
 * tests: asynchronous invocations of the worker through the Lambda endpoint (LOCAL_LAMBDA_ENDPOINT),
 * with the same SQS-shaped events.
 */
export function getJobQueue(env: NodeJS.ProcessEnv = process.env): JobQueue {
  if (shared) return shared;
  const queueUrl = env.EVALUATION_QUEUE_URL ?? '';
  shared =
    env.IS_OFFLINE !== 'true' && /^https?:\/\//.test(queueUrl)
      ? new SqsQueue(queueUrl, env.EVALUATION_QUEUE_ENDPOINT || undefined)
      : new LocalLambdaQueue(
          env.LOCAL_LAMBDA_ENDPOINT || 'http://127.0.0.1:3002',
          env.EVALUATION_WORKER_FUNCTION || 'computational-governance-platform-dev-evaluation-worker',
        );
  return shared;
}

/** Forgets the queue chosen from the environment (tests that change it). */
export function resetJobQueue(): void {
  shared = undefined;
}
