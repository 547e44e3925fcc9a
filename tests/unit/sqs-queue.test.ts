import { createHash } from 'node:crypto';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { LocalLambdaQueue } from '#lib/queue/local-lambda-queue';
import { jobQueueOf, maxReceivesOf, visibilityMsOf } from '#lib/queue/queue-from-settings';
import { SqsQueue } from '#lib/queue/sqs-queue';
import { SettingsError } from '#lib/settings/index';

import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { captureLogs } from '../support/log-capture';
import { settingsWith } from '../support/settings-files';

/** The default outbound timeouts (http.client-connect-timeout, http.client-read-timeout). */
const TIMEOUTS = { connectMs: 10_000, readMs: 45_000 };
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** SQS (AWS JSON 1.0 protocol) on 127.0.0.1: takes every entry except the ids listed in `refuse`. */
const refuse = new Set<string>();
const sqs = new FakeServer((request: RecordedRequest<{ QueueUrl: string; Entries: { Id: string; MessageBody: string }[] }>) => {
  const entries = request.body.Entries;
  const taken = entries.filter((entry) => !refuse.has(JSON.parse(entry.MessageBody).taskId));
  return {
    status: 200,
    headers: { 'content-type': 'application/x-amz-json-1.0' },
    body: {
      Successful: taken.map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: md5(entry.MessageBody) })),
      Failed: entries
        .filter((entry) => !taken.includes(entry))
        .map((entry) => ({ Id: entry.Id, SenderFault: false, Code: 'InternalError', Message: 'try again' })),
    },
  };
});

beforeAll(async () => {
  await sqs.start();
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_REGION', 'eu-west-1');
});

beforeEach(() => {
  sqs.reset();
  refuse.clear();
});

afterAll(async () => {
  await sqs.stop();
  vi.unstubAllEnvs();
});

/** Settings whose evaluation queue has this URL and a local Lambda endpoint. */
const queueSettings = (url: string) =>
  settingsWith(`computational-governance-platform.evaluation.queue {
    url = "${url}"
    local-lambda-endpoint = "http://127.0.0.1:3002"
    worker-function = "cgp-dev-evaluation-worker"
  }`);

describe('the evaluation queue', () => {
  it('in AWS is SQS: SendMessageBatch in batches of ten, one { taskId } body per task', async () => {
    const queue = new SqsQueue(`${sqs.url}/000000000000/cgp-evaluation-tasks`, undefined, TIMEOUTS);
    const ids = Array.from({ length: 12 }, (_, i) => `task-${i}`);
    expect(await queue.send(ids)).toEqual(ids);
    expect(sqs.requests).toHaveLength(2);
    const [first, second] = sqs.requests;
    expect(first.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
    expect(first.body.QueueUrl).toBe(`${sqs.url}/000000000000/cgp-evaluation-tasks`);
    expect(first.body.Entries).toHaveLength(10);
    expect(second.body.Entries.map((entry) => JSON.parse(entry.MessageBody))).toEqual([{ taskId: 'task-10' }, { taskId: 'task-11' }]);
    expect(queue.redelivers).toBe(true);
  });

  it('answers only the tasks SQS took; refused or unreachable ones are left for the sweeper', async () => {
    const queue = new SqsQueue(`${sqs.url}/000000000000/q`, undefined, TIMEOUTS);
    refuse.add('b');
    expect(await queue.send(['a', 'b', 'c'])).toEqual(['a', 'c']);
    const closed = new FakeServer();
    await closed.start();
    const url = closed.url;
    await closed.stop();
    expect(await new SqsQueue(`${url}/000000000000/q`, undefined, TIMEOUTS).send(['a'])).toEqual([]);
  });

  it('is chosen from the settings: SQS when evaluation.queue.url is an http(s) URL, the local Lambda endpoint under serverless offline', async () => {
    const settings = await queueSettings('https://sqs.eu-west-1.amazonaws.com/1/q');
    expect(jobQueueOf(settings, { offline: false })).toBeInstanceOf(SqsQueue);
    const offline = jobQueueOf(settings, { offline: true });
    expect(offline).toBeInstanceOf(LocalLambdaQueue);
    expect(offline.redelivers).toBe(false);
    // Under serverless offline, serverless.yml's { Ref: EvaluationQueue } arrives as no URL at all.
    const unresolved = await queueSettings('[object Object]');
    expect(jobQueueOf(unresolved, { offline: false })).toBeInstanceOf(LocalLambdaQueue);
  });

  it("reads serverless.yml's environment variables through application.conf, and names a missing one", async () => {
    vi.stubEnv('EVALUATION_QUEUE_URL', 'https://sqs.eu-west-1.amazonaws.com/1/q');
    vi.stubEnv('EVALUATION_QUEUE_MAX_RECEIVES', '4');
    vi.stubEnv('EVALUATION_QUEUE_VISIBILITY_TIMEOUT', '360 seconds');
    try {
      const settings = await settingsWith('');
      expect(settings.evaluation.queue.url).toBe('https://sqs.eu-west-1.amazonaws.com/1/q');
      expect(maxReceivesOf(settings)).toBe(4);
      expect(visibilityMsOf(settings)).toBe(360_000);
      expect(() => jobQueueOf(settings, { offline: true })).toThrow(SettingsError);
      expect(() => jobQueueOf(settings, { offline: true })).toThrow(
        'computational-governance-platform.evaluation.queue.local-lambda-endpoint: required by the evaluation queue (serverless.yml passes it as LOCAL_LAMBDA_ENDPOINT)',
      );
    } finally {
      vi.stubEnv('EVALUATION_QUEUE_URL', undefined);
      vi.stubEnv('EVALUATION_QUEUE_MAX_RECEIVES', undefined);
      vi.stubEnv('EVALUATION_QUEUE_VISIBILITY_TIMEOUT', undefined);
    }
  });
});

describe('the evaluation queue, against an endpoint that never answers', () => {
  const silent = new FakeServer(() => ({ hang: true }));
  const SHORT = { connectMs: 10_000, readMs: 200 };
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(() => silent.start());
  beforeEach(() => {
    logs = captureLogs('warn');
  });
  afterEach(() => logs.stop());
  afterAll(() => silent.stop());

  /** The errors the queue logged, as logged. */
  const loggedErrors = () => logs.lines.map((line) => line.err as { type: string; message: string });

  it('gives up on the local Lambda invocation after http.client-read-timeout, naming the host', async () => {
    expect(await new LocalLambdaQueue(silent.url, 'worker', SHORT).send(['a'])).toEqual([]);
    expect(loggedErrors()).toEqual([
      expect.objectContaining({
        type: 'OutboundTimeoutError',
        message: `Reading from ${new URL(silent.url).host} timed out after 200 ms (http.client-read-timeout)`,
      }),
    ]);
  });

  it('gives up on SendMessageBatch after http.client-read-timeout, naming the host', async () => {
    expect(await new SqsQueue(`${silent.url}/000000000000/q`, undefined, SHORT).send(['a'])).toEqual([]);
    expect(loggedErrors()).toEqual([
      expect.objectContaining({
        type: 'OutboundTimeoutError',
        message: `Reading from ${new URL(silent.url).host} timed out after 200 ms (http.client-read-timeout)`,
      }),
    ]);
  });
});
