import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';

import { handleJobBatch } from '#lib/queue/job-batch';
import { sqsEventOf } from '#lib/queue/sqs-event';

import { handler as deadLetters } from '../../functions/workers/evaluation-dead-letters';
import { captureLogs } from '../support/log-capture';

/** A batch of three readable messages (tasks a and b, evidence pack c) and one whose body names no job. */
function batch(): SQSEvent {
  const event = sqsEventOf([{ taskId: 'a' }, { taskId: 'b' }, { evidenceId: 'c' }]);
  event.Records.push({ ...event.Records[0], messageId: 'unreadable-1', body: '{"secret":"not a task"}' });
  return event;
}

let logs: ReturnType<typeof captureLogs> | undefined;
afterEach(() => logs?.stop());

describe('a batch of evaluation queue messages', () => {
  it('reports as partial failures the ids of exactly the messages whose handling threw, each failure logged', async () => {
    const event = batch();
    const handled: string[] = [];
    const failures: string[] = [];
    const answer = await handleJobBatch(event, {
      handle: async (message) => {
        const id = 'taskId' in message ? message.taskId : `pack ${message.evidenceId}`;
        handled.push(id);
        if (id !== 'b') throw new Error(`${id} failed`);
      },
      failed: (error, message) => failures.push(`${JSON.stringify(message)}: ${(error as Error).message}`),
      unreadable: 'unreadable message',
    });
    expect(handled).toEqual(['a', 'b', 'pack c']);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0].messageId }, { itemIdentifier: event.Records[2].messageId }] });
    expect(failures).toEqual(['{"taskId":"a"}: a failed', '{"evidenceId":"c"}: pack c failed']);
  });

  it('logs a message that names no task with its messageId, never its body, and does not report it', async () => {
    logs = captureLogs();
    const answer = await handleJobBatch(batch(), { handle: async () => undefined, failed: () => undefined, unreadable: 'unreadable message' });
    expect(answer).toEqual({ batchItemFailures: [] });
    const warned = logs.lines.filter((line) => line.msg === 'unreadable message');
    expect(warned).toEqual([expect.objectContaining({ level: 'warn', messageId: 'unreadable-1' })]);
    expect(JSON.stringify(logs.lines)).not.toContain('not a task');
  });

  it('the dead-letter handler logs a message it cannot read instead of dropping it silently', async () => {
    logs = captureLogs();
    const event = sqsEventOf([]);
    event.Records.push({ ...batch().Records[3], body: 'not json' });
    expect(await deadLetters(event)).toEqual({ batchItemFailures: [] });
    expect(logs.lines).toEqual([
      expect.objectContaining({ level: 'warn', messageId: 'unreadable-1', msg: 'a dead-lettered evaluation message names no task: dropped' }),
    ]);
  });
});
