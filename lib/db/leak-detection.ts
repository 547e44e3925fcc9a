import { logger } from '#lib/logging/logger';
import { traced } from '#lib/observability/tracing';

import type { Database } from './client';

/**
 * Runs `work` while it holds a connection, and logs a warning naming `holder` if it keeps the
 * connection longer than `database.leak-detection-threshold`. Connections are held across
 * awaits only by transactions and reserved connections, and both go through here (and are traced
 * as one subsegment, lib/observability/tracing.ts).
 */
export async function holdingConnection<T>(database: Database, holder: string, work: () => Promise<T>): Promise<T> {
  const threshold = database.settings.database.leakDetectionThreshold;
  const startedAt = Date.now();
  const timer =
    threshold && threshold > 0
      ? setTimeout(() => {
          logger.warn(
            { holder, thresholdMs: threshold, heldMs: Date.now() - startedAt },
            `possible connection leak: ${holder} has held a database connection longer than the leak-detection-threshold`,
          );
        }, threshold)
      : undefined;
  timer?.unref();
  try {
    return await traced('## database transaction', work);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
