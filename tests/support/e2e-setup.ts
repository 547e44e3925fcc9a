import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { TestProject } from 'vitest/node';

import { openDatabase } from '#lib/db/client';
import type { Settings } from '#lib/settings/index';
import { SECRET_VARIABLES } from '#lib/settings/secret-parameters';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { freePort } from '../../scripts/free-port';
import { startServerlessOffline } from '../../scripts/serverless-offline';
import { startTestDatabase } from './database-setup';
import { settingsWith, testSettingsFile } from './settings-files';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** serverless offline's Lambda endpoint, to invoke the scheduled functions as their schedule does. */
    lambdaUrl: string;
    packageDir: string;
    /** The stage packageDir was packaged for. */
    packageStage: string;
    /** The file serverless offline writes its output to (the functions' logs and metric lines). */
    offlineLog: string;
  }
}

/**
 * The stage the tests package for: 10 characters, the longest stage name whose generated names
 * (functions, queues, roles...) docs/deployment.md promises to fit AWS's limits; cfn-lint checks them.
 */
const PACKAGE_STAGE = 'preprod-eu';

/**
 * `serverless package` into a temporary folder, before serverless offline builds in the same tree: the
 * package of a deployment that gives no secret (none of this shell's, e.g. a DATABASE_URL of the tests),
 * whose template the package tests read.
 */
async function packageService(): Promise<string> {
  const packageDir = await mkdtemp(path.join(tmpdir(), 'cgp-package-'));
  await chmod(packageDir, 0o755);
  const env: NodeJS.ProcessEnv = { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
  for (const variable of SECRET_VARIABLES) {
    delete env[variable];
    delete env[`${variable}_SSM`];
  }
  const result = spawnSync(process.execPath, ['node_modules/serverless/bin/serverless.js', 'package', '--stage', PACKAGE_STAGE, '--package', packageDir], {
    encoding: 'utf8',
    env,
  });
  if (result.status !== 0) throw new Error(`serverless package failed:\n${result.stdout}\n${result.stderr}`);
  return packageDir;
}

/** Each run starts from an empty schema, also on a DATABASE_URL server used before. */
async function resetSchema(settings: Settings): Promise<void> {
  const database = openDatabase(settings);
  await database.sql.unsafe(`drop schema if exists "${settings.database.schema}" cascade`);
  await database.close();
}

/** The end-to-end world: a packaged bundle, PostgreSQL, the start-up tasks, and serverless offline. */
export default async function setup(project: TestProject) {
  const packageDir = await packageService();
  const database = await startTestDatabase();
  // No assistant.encryption-key: the handlers and the start-up tasks must find the same local key, as under npm start.
  const overrides = 'computational-governance-platform.database.schema = "e2e"';
  const configFile = testSettingsFile(overrides);
  const settings = await settingsWith(overrides, database.url);
  await resetSchema(settings);
  await runStartupTasks(settings);
  const lambdaPort = await freePort();
  const logFolder = await mkdtemp(path.join(tmpdir(), 'cgp-e2e-log-'));
  const offlineLog = path.join(logFolder, 'offline.log');
  const offline = startServerlessOffline({
    httpPort: await freePort(),
    lambdaPort,
    // Metrics on: the functions' metric lines are read from the log (tests/e2e/governance.test.ts).
    env: { ...process.env, DATABASE_URL: database.url, CGP_CONFIG_FILE: configFile, LOG_LEVEL: 'warn', METRICS_ENABLED: 'true' },
    logFile: offlineLog,
  });
  await offline.ready;
  project.provide('baseUrl', offline.baseUrl);
  project.provide('lambdaUrl', `http://127.0.0.1:${lambdaPort}`);
  project.provide('databaseUrl', database.url);
  project.provide('packageDir', packageDir);
  project.provide('packageStage', PACKAGE_STAGE);
  project.provide('offlineLog', offlineLog);
  return async () => {
    await offline.stop();
    await rm(logFolder, { recursive: true, force: true });
    await database.stop();
  };
}
