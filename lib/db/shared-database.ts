import { lazily } from '#lib/cache/lazy';
import { getSettings } from '#lib/settings/shared-settings';

import { type Database, openDatabase } from './client';

// The pool of the process: read only by composition modules and entry points (the layer lint says
// which), which pass it down; everything else receives it.

const shared = lazily(async () => openDatabase(await getSettings()));

/** The pool of this process or Lambda container, opened on first use. */
export const getDatabase = (): Promise<Database> => shared.get();

/** Closes the shared pool (tests, and scripts that end). */
export async function closeSharedDatabase(): Promise<void> {
  await shared
    .reset()
    ?.then((database) => database.close())
    .catch(() => undefined);
}
