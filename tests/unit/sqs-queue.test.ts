import { createHash } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { getJobQueue, resetJobQueue } from '../../lib/queue/job-queue';
import { LocalLambdaQueue } from '../../lib/queue/local-lambda-queue';
import { SqsQueue } from '../../lib/queue/sqs-queue';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';

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
  resetJobQueue();
});

afterAll(async () => {
  await sqs.stop();
  vi.unstubAllEnvs();
  resetJobQueue();
});

describe('the evaluation queue', () => {
  it('in AWS is SQS: SendMessageBatch in batches of ten, one { taskId } body per task', async () => {
    const queue = new SqsQueue(`${sqs.url}/000000000000/cgp-evaluation-tasks`);
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
    const queue = new SqsQueue(`${sqs.url}/000000000000/q`);
    refuse.add('b');
    expect(await queue.send(['a', 'b', 'c'])).toEqual(['a', 'c']);
    const closed = new FakeServer();
    await closed.start();
    const url = closed.url;
    await closed.stop();
    expect(await new SqsQueue(`${url}/000000000000/q`).send(['a'])).toEqual([]);
  });

  it('is chosen from the environment: SQS when EVALUATION_QUEUE_URL is set, the local Lambda endpoint under serverless offline', () => {
    expect(getJobQueue({ EVALUATION_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/q' })).toBeInstanceOf(SqsQueue);
    resetJobQueue();
    expect(getJobQueue({ EVALUATION_QUEUE_URL: '[object Object]', IS_OFFLINE: 'true' })).toBeInstanceOf(LocalLambdaQueue);
    resetJobQueue();
    expect(getJobQueue({ IS_OFFLINE: 'true', EVALUATION_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/q' }).redelivers).toBe(false);
  });
});
