import type { ServiceContext } from '#lib/db/client';
import { getDatabase } from '#lib/db/shared-database';
import type { Settings } from '#lib/settings/index';
import { getSettings } from '#lib/settings/shared-settings';

// Where the service frame (lib/http/handler.ts: authentication, the audit trail) is put together:
// the one module of lib/http that reads the process's settings and pool.

/** The settings and pool of this process, for one call. */
export async function serviceFrame(): Promise<ServiceContext> {
  const [settings, database] = await Promise.all([getSettings(), getDatabase()]);
  return { database, settings };
}

/** The settings of this process alone (the pool is not opened for them). */
export const serviceSettings = (): Promise<Settings> => getSettings();
