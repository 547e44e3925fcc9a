import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';

import { lazily } from '#lib/cache/lazy';
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
