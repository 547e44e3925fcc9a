import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';

import { getSettings, type Settings } from '#lib/settings/index';

import { defineTables, type Tables } from '../../drizzle/schema/index';
import { connectionUrl, poolOptions } from './connection';

export interface Database {
  readonly sql: postgres.Sql;
  readonly db: PostgresJsDatabase;
  readonly tables: Tables;
  readonly schemaName: string;
  readonly settings: Settings;
  close(): Promise<void>;
}

/** Opens a pool on the configured database; tables are bound to the configured schema. */
export function openDatabase(settings: Settings, overrides: Partial<postgres.Options<Record<string, never>>> = {}): Database {
  const sql = postgres(connectionUrl(settings), { ...poolOptions(settings), ...overrides });
  return {
    sql,
    db: drizzle(sql),
    tables: defineTables(settings.database.schema),
    schemaName: settings.database.schema,
    settings,
    close: () => sql.end({ timeout: 5 }),
  };
}

let shared: Promise<Database> | undefined;

/** The pool of this process or Lambda container, opened on first use. */
export function getDatabase(): Promise<Database> {
  shared ??= getSettings().then((settings) => openDatabase(settings));
  shared.catch(() => {
    shared = undefined;
  });
  return shared;
}

/** Closes the shared pool (tests, and scripts that end). */
export async function closeSharedDatabase(): Promise<void> {
  const current = shared;
  shared = undefined;
  await current?.then((database) => database.close()).catch(() => undefined);
}
