import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { loadSettings, type Settings } from '#lib/settings/index';

const folder = mkdtempSync(path.join(tmpdir(), 'cgp-settings-'));
let count = 0;

/** Writes a settings file into a temporary folder and returns its path. */
export function writeSettingsFile(text: string): string {
  const file = path.join(folder, `settings-${++count}.conf`);
  writeFileSync(file, text);
  return file;
}

/** The smallest valid settings: only what has no default. */
export const MINIMAL = `
computational-governance-platform {
  notification { enabled = false }
  platform-services { base-url = "http://platform.test" }
  database {}
}
`;

export const APPLICATION_CONF = path.resolve('config', 'application.conf');

/** The backend secret of the tests' settings: their technical JWTs are signed with it. */
export const TEST_BACKEND_SECRET = 'test-backend-secret-0123456789abcdef';
const TEST_AUTH = `computational-governance-platform.platform-services.auth.backend-secrets = ["${TEST_BACKEND_SECRET}"]`;

/**
 * Settings of the shipped application.conf with `overrides` (HOCON) on top, pointing at
 * `databaseUrl`: each integration test file gets its own PostgreSQL schema this way.
 */
export function testSettingsFile(overrides: string): string {
  return writeSettingsFile(`include file("${APPLICATION_CONF}")\n${TEST_AUTH}\n${overrides}\n`);
}

export function settingsWith(overrides: string, databaseUrl?: string): Promise<Settings> {
  return loadSettings(testSettingsFile(overrides), { DATABASE_URL: databaseUrl });
}
