import { randomUUID } from 'node:crypto';

import type { SQSEvent, SQSRecord } from 'aws-lambda';

/** What an evaluation queue message names: an evaluation task, or an evidence pack to build (docs/evidence.md). */
const JOB_KINDS = ['taskId', 'evidenceId'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** The body of every evaluation queue message: one job, by its kind. */
export type JobMessage = { taskId: string } | { evidenceId: string };

/** The body of a message naming the job `id` of `kind`. */
export const jobMessage = (kind: JobKind, id: string): JobMessage => ({ [kind]: id }) as JobMessage;

/** The job a queue message names, or undefined for a body that names none. */
export function jobMessageOf(record: SQSRecord): JobMessage | undefined {
  try {
    const body = JSON.parse(record.body) as Record<string, unknown>;
    const kind = JOB_KINDS.find((name) => typeof body[name] === 'string' && body[name]);
    return kind ? jobMessage(kind, body[kind] as string) : undefined;
  } catch {
    return undefined;
  }
}

/** An event shaped as SQS delivers it to Lambda, for the local queue (and the tests). */
export function sqsEventOf(messages: readonly JobMessage[]): SQSEvent {
  const now = String(Date.now());
  return {
    Records: messages.map((message): SQSRecord => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      body: JSON.stringify(message),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: now, SenderId: 'local', ApproximateFirstReceiveTimestamp: now },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:evaluation-tasks',
      awsRegion: 'local',
    })),
  };
}
