import type { Database } from '#lib/db/client';
import { logger } from '#lib/logging/logger';

const PROBE_TIMEOUT_MS = 3000;

/** True when the pool `open` gives (a pool that cannot be opened is unreachable) answers a trivial query within a few seconds. */
export async function databaseReachable(open: () => Promise<Database>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const database = await open();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
    });
    await Promise.race([database.sql`select 1`, timeout]);
    return true;
  } catch (error) {
    logger.warn({ reason: (error as Error).message }, 'database health probe failed');
    return false;
  } finally {
    clearTimeout(timer);
  }
}
