import { timeoutsOf } from '#lib/platform/http-client';
import { type RuntimeEnvironment, runtimeEnvironment } from '#lib/settings/environment';
import { type Settings, SettingsError } from '#lib/settings/index';

import type { JobQueue } from './job-queue';
import { LocalLambdaQueue } from './local-lambda-queue';
import { SqsQueue } from './sqs-queue';

type QueueSettings = Settings['evaluation']['queue'];

/** A value of `evaluation.queue` that serverless.yml passes; without it the queue cannot work. */
function required<K extends keyof QueueSettings>(settings: Settings, key: K, variable: string): NonNullable<QueueSettings[K]> {
  const value = settings.evaluation.queue[key];
  if (value === undefined || value === null) {
    const name = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    throw new SettingsError(settings.source, [
      `computational-governance-platform.evaluation.queue.${name}: required by the evaluation queue (serverless.yml passes it as ${variable})`,
    ]);
  }
  return value as NonNullable<QueueSettings[K]>;
}

/** How many times a message is received before it goes to the dead-letter path (`evaluation.queue.max-receives`). */
export const maxReceivesOf = (settings: Settings): number => required(settings, 'maxReceives', 'EVALUATION_QUEUE_MAX_RECEIVES');

/** How long SQS waits before it delivers a failed message again, in ms (`evaluation.queue.visibility-timeout`). */
export const visibilityMsOf = (settings: Settings): number => required(settings, 'visibilityTimeout', 'EVALUATION_QUEUE_VISIBILITY_TIMEOUT');

/**
 * The queue the settings name: the SQS queue of `evaluation.queue.url` in AWS; under serverless
 * offline, or without an http(s) queue URL, asynchronous invocations of the worker through
 * `local-lambda-endpoint`, with the same SQS-shaped events. Outbound calls of both take the
 * `http.client-*-timeout` settings.
 */
export function jobQueueOf(settings: Settings, environment: Pick<RuntimeEnvironment, 'offline'> = runtimeEnvironment()): JobQueue {
  const { url, endpoint } = settings.evaluation.queue;
  if (!environment.offline && url && /^https?:\/\//.test(url)) return new SqsQueue(url, endpoint, timeoutsOf(settings));
  return new LocalLambdaQueue(
    required(settings, 'localLambdaEndpoint', 'LOCAL_LAMBDA_ENDPOINT'),
    required(settings, 'workerFunction', 'EVALUATION_WORKER_FUNCTION'),
    timeoutsOf(settings),
  );
}
