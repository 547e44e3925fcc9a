import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';

import type { Settings } from '#lib/settings/index';

import { defineTables, type Tables } from '../../drizzle/schema/index';
import { connectionUrl, poolOptions } from './connection';
import { preparedStatements } from './prepared-statements';
import { tracedQueries } from './traced-queries';

export interface Database {
  readonly sql: postgres.Sql;
  readonly db: PostgresJsDatabase;
  readonly tables: Tables;
  readonly schemaName: string;
  readonly settings: Settings;
  close(): Promise<void>;
}

/** What a service works with: its settings and its pool (composition modules build it; everything else receives it). */
export interface ServiceContext {
  readonly database: Database;
  readonly settings: Settings;
}

/** Opens a pool on the configured database; tables are bound to the configured schema; drizzle's queries are traced. */
export function openDatabase(settings: Settings, overrides: Partial<postgres.Options<Record<string, never>>> = {}): Database {
  const sql = postgres(connectionUrl(settings), { ...poolOptions(settings), ...overrides });
  return {
    sql,
    db: drizzle(tracedQueries(preparedStatements(sql))),
    tables: defineTables(settings.database.schema),
    schemaName: settings.database.schema,
    settings,
    close: () => sql.end({ timeout: 5 }),
  };
}
