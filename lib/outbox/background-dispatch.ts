import type { ServiceContext } from '#lib/db/client';
import { logger } from '#lib/logging/logger';

import { dispatchOutbox, platformDelivery } from './outbox-dispatcher';

let running: Promise<void> | undefined;
let again = false;

/**
 * Starts delivering the outbox without anyone waiting for it: at most one delivery runs per
 * process; a request made meanwhile makes it go round once more. What this misses (a Lambda frozen
 * after its answer, a receiver down) the scheduled dispatcher delivers later.
 */
export function dispatchInBackground({ database, settings }: ServiceContext): void {
  if (running) {
    again = true;
    return;
  }
  running = (async () => {
    do {
      again = false;
      await dispatchOutbox(database, platformDelivery(settings));
    } while (again);
  })()
    .catch((error) => logger.warn({ err: error }, 'background outbox delivery failed; the scheduled dispatcher will retry'))
    .finally(() => {
      running = undefined;
    });
}

/** For tests and scripts: waits until the background delivery in progress, if any, is over. */
export async function backgroundDispatchSettled(): Promise<void> {
  while (running) await running;
}
