import { getDatabase } from '#lib/db/client';
import { logger } from '#lib/logging/logger';

const PROBE_TIMEOUT_MS = 3000;

/** True when a trivial query answers within a few seconds. */
export async function databaseReachable(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const database = await getDatabase();
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
