import { randomUUID } from 'node:crypto';

import type { SQSEvent, SQSRecord } from 'aws-lambda';

/** The body of every evaluation queue message. */
export interface JobMessage {
  taskId: string;
}

/** The job a queue message names, or undefined for a body that names none. */
export function jobMessageOf(record: SQSRecord): JobMessage | undefined {
  try {
    const body = JSON.parse(record.body) as Partial<JobMessage>;
    return typeof body.taskId === 'string' && body.taskId ? { taskId: body.taskId } : undefined;
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
