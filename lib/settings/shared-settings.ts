import { lazily } from '#lib/cache/lazy';

import { loadSettings, type Settings } from './load';

// The settings of the process: read only by composition modules and entry points (the layer lint
// says which), which pass them down; everything else receives them.

export type { Settings };

const loaded = lazily(loadSettings);

/** The settings of this process (or Lambda container), loaded once. */
export const getSettings = (): Promise<Settings> => loaded.get();

/** Forgets the loaded settings, so that the next getSettings reads the file and the environment again (tests that change them). */
export function resetSettings(): void {
  loaded.reset();
}
