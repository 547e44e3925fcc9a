import type { Database } from '#lib/db/client';
import { logger } from '#lib/logging/logger';
import type { Settings } from '#lib/settings/index';

import { fetchEnvironments } from './environment-fetch';
import { EnvironmentRepository } from './environment-repository';

/**
 * The start-up task: the static list of the settings when there is one, else the platform's list.
 * When the platform cannot be had, start goes on with the last stored list (and says so).
 */
export async function refreshEnvironments(database: Database, settings: Settings): Promise<string> {
  const repository = new EnvironmentRepository(database);
  const fixed = settings.platformServices.environments.staticEnvironments;
  if (fixed) {
    await repository.replaceAll(
      fixed.map(({ name }) => ({ name, details: {} })),
      'settings',
    );
    return `${fixed.length} from the settings`;
  }
  try {
    const pulled = await fetchEnvironments(settings);
    await repository.replaceAll(pulled, 'platform');
    return `${pulled.length} from the platform`;
  } catch (error) {
    const stored = await repository.names();
    const reason = (error as Error).message;
    logger.error(
      { reason, kept: stored.length },
      stored.length > 0
        ? `could not fetch the environments from the platform: going on with the ${stored.length} stored at an earlier start`
        : 'could not fetch the environments from the platform and none were stored before: evaluations answer 503 until a start fetches them',
    );
    return `fetch failed (${reason}); ${stored.length} kept from an earlier start`;
  }
}
