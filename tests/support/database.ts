import { inject } from 'vitest';

import { type Database, openDatabase } from '#lib/db/client';
import type { Settings } from '#lib/settings/index';

import { settingsWith } from './settings-files';

/** Settings of application.conf on the test PostgreSQL, in a schema of the test's own. */
export function testSettings(schema: string, overrides = '', databaseUrl = inject('databaseUrl')): Promise<Settings> {
  return settingsWith(`computational-governance-platform.database.schema = "${schema}"\n${overrides}`, databaseUrl);
}

/** A pool on the test database; the caller closes it. */
export async function testDatabase(schema: string, overrides = ''): Promise<Database> {
  return openDatabase(await testSettings(schema, overrides));
}
