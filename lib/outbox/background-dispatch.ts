import { setTimeout as sleep } from 'node:timers/promises';

import type { ServiceContext } from '#lib/db/client';
import { logger } from '#lib/logging/logger';

import { dispatchOutbox, platformDelivery } from './outbox-dispatcher';

/**
 * How long a delivery waits for the calls that follow to join it: under load, the records of many
 * calls are linked into the audit chain and sent in the same batches (a few transactions for all
 * of them instead of a few for each).
 */
const GATHER_MS = 100;

let pending: Promise<void> | undefined;
let again = false;

/**
 * Starts delivering the outbox without anyone waiting for it, GATHER_MS from now: at most one
 * delivery is pending or running per process; a request made meanwhile makes it go round once
 * more. What this misses (a Lambda frozen after its answer, a receiver down) the scheduled
 * dispatcher delivers later.
 */
export function dispatchInBackground(ctx: ServiceContext): void {
  if (pending) {
    again = true;
    return;
  }
  const { database, settings } = ctx;
  pending = (async () => {
    // A round asked for while one runs waits as well: at once, it would take the few records of the
    // calls that came meanwhile, and a process answering calls back to back would deliver without end.
    do {
      await sleep(GATHER_MS);
      again = false;
      await dispatchOutbox(database, platformDelivery(settings));
    } while (again);
  })()
    .catch((error) => logger.warn({ err: error }, 'background outbox delivery failed; the scheduled dispatcher will retry'))
    .finally(() => {
      pending = undefined;
      // Asked for while the last round was ending.
      if (again) dispatchInBackground(ctx);
    });
}

/** For tests and scripts: waits until the background delivery pending or in progress, if any, is over. */
export async function backgroundDispatchSettled(): Promise<void> {
  while (pending) await pending;
}
