import { inject, vi } from 'vitest';

import { runStartupTasks } from '#lib/startup/startup-tasks';

import { testSettings } from './database';
import { testSettingsFile } from './settings-files';

/**
 * Prepares a schema of the test's own (start-up tasks included) and points the handlers of this
 * test file at it, as CGP_CONFIG_FILE and DATABASE_URL do for a deployed function (on the tests'
 * PostgreSQL unless `databaseUrl` names another).
 */
export async function useHandlersOn(schema: string, overrides = '', databaseUrl = inject('databaseUrl')): Promise<void> {
  const all = `computational-governance-platform.database.schema = "${schema}"\n${overrides}`;
  const settings = await testSettings(schema, overrides, databaseUrl);
  const { openDatabase } = await import('#lib/db/client');
  const database = openDatabase(settings);
  await database.sql.unsafe(`drop schema if exists "${schema}" cascade`);
  await database.close();
  await runStartupTasks(settings);
  vi.stubEnv('CGP_CONFIG_FILE', testSettingsFile(all));
  vi.stubEnv('DATABASE_URL', databaseUrl);
  // The evaluation queue's settings, as serverless.yml passes them. Evaluation tasks go nowhere
  // unless a test points the local queue at a fake Lambda endpoint.
  vi.stubEnv('EVALUATION_QUEUE_MAX_RECEIVES', '5');
  vi.stubEnv('EVALUATION_WORKER_FUNCTION', 'computational-governance-platform-test-evaluation-worker');
  vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', 'http://127.0.0.1:9');
  const { resetSettings } = await import('#lib/settings/shared-settings');
  resetSettings();
}

/** Undoes useHandlersOn: closes the handlers' pool and restores the environment. */
export async function releaseHandlers(): Promise<void> {
  const { closeSharedDatabase } = await import('#lib/db/shared-database');
  await closeSharedDatabase();
  vi.unstubAllEnvs();
}
