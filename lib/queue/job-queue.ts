import type { JobKind } from './sqs-event';

/**
 * The port through which evaluation work reaches the queue-invoked worker. A message carries the
 * id of a job row in PostgreSQL (the row is the truth; the message only says "look at it").
 */
export interface JobQueue {
  /**
   * Sends one message per id, each naming its job as `kind` says (default: an evaluation task);
   * answers the ids that reached the queue (the others are to be sent again).
   */
  send(ids: readonly string[], kind?: JobKind): Promise<string[]>;
  /**
   * True when the queue itself redelivers a message the worker reported as failed and moves it to
   * the dead-letter queue after its receive limit (SQS). False locally: the sweeper does both.
   */
  readonly redelivers: boolean;
}
