import path from 'node:path';

import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { PgDialect, PgSession } from 'drizzle-orm/pg-core';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';

import { logger } from '#lib/logging/logger';
import { runtimeEnvironment } from '#lib/settings/environment';

import { MIGRATIONS_SCHEMA_NAME } from '../../drizzle/schema/index';
import type { Database } from './client';
import { holdingConnection } from './leak-detection';
import { tableExists } from './table-exists';

const MIGRATIONS_TABLE = '__drizzle_migrations';

function migrationsFolder(): string {
  return path.join(runtimeEnvironment().root, 'drizzle', 'migrations');
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/**
 * The committed migrations name the schema `cgp`; point them at the configured schema. The schema
 * may already exist (the migration journal lives in it), so its creation must tolerate that.
 */
function retarget(statement: string, schemaName: string): string {
  return statement.replaceAll(quote(MIGRATIONS_SCHEMA_NAME), quote(schemaName)).replace(/CREATE SCHEMA (?!IF NOT EXISTS)/g, 'CREATE SCHEMA IF NOT EXISTS ');
}

/** Applies the migrations not applied yet to the configured schema. Returns how many it applied. */
export async function applyMigrations(database: Database): Promise<number> {
  const { db, schemaName } = database;
  const migrations = readMigrationFiles({ migrationsFolder: migrationsFolder() }).map((migration) => ({
    ...migration,
    sql: migration.sql.map((statement) => retarget(statement, schemaName)),
  }));
  const before = await appliedCount(database);
  const { dialect, session } = drizzleMigrator(db);
  await dialect.migrate(migrations, session, {
    migrationsFolder: migrationsFolder(),
    migrationsSchema: schemaName,
    migrationsTable: MIGRATIONS_TABLE,
  });
  return (await appliedCount(database)) - before;
}

/**
 * drizzle's own migrator, which applies the re-targeted statements (its public `migrate` reads the
 * files itself and cannot re-target them). Its dialect and session are internal to drizzle, absent
 * from its types, and used as drizzle-orm/postgres-js/migrator uses them: package.json pins
 * drizzle-orm to an exact version, and tests/unit/drizzle-migrator.test.ts fails when an upgrade
 * changes them, before any migration runs on a wrong shape.
 */
export function drizzleMigrator(db: PostgresJsDatabase): { dialect: PgDialect; session: PgSession } {
  const { dialect, session } = db as unknown as { dialect?: Partial<PgDialect>; session?: Partial<PgSession> };
  if (
    typeof dialect?.migrate !== 'function' ||
    ['execute', 'all', 'transaction'].some((method) => typeof session?.[method as keyof PgSession] !== 'function')
  ) {
    throw new Error(
      'drizzle-orm no longer has the dialect.migrate and session this project migrates with (lib/db/migrations.ts): pin the version it was written for',
    );
  }
  return { dialect: dialect as PgDialect, session: session as PgSession };
}

async function appliedCount(database: Database): Promise<number> {
  if (!(await tableExists(database, MIGRATIONS_TABLE))) return 0;
  const [{ count }] = await database.sql.unsafe<{ count: number }[]>(`select count(*)::int as count from ${quote(database.schemaName)}.${MIGRATIONS_TABLE}`);
  return count;
}

/** Destroys the configured schema and everything in it. Only `database.repair-on-start` calls this. */
export async function dropSchema(database: Database): Promise<void> {
  logger.warn(
    { schema: database.schemaName },
    `database.repair-on-start is true: DROPPING schema "${database.schemaName}" and ALL ITS DATA, then recreating it from the migrations. ` +
      'Turn repair-on-start off once the database is repaired.',
  );
  await database.sql.unsafe(`DROP SCHEMA IF EXISTS ${quote(database.schemaName)} CASCADE`);
}

/**
 * Runs `work` while holding a PostgreSQL advisory lock keyed by the schema name, so that two
 * start-ups (two deploys, or a deploy and `npm start`) never migrate the same schema at once.
 * The lock lives on a connection of its own, apart from the pool the work uses.
 */
export async function withSchemaLock<T>(database: Database, work: () => Promise<T>): Promise<T> {
  const connection = await database.sql.reserve();
  try {
    return await holdingConnection(database, 'start-up tasks (schema lock)', async () => {
      await connection`select pg_advisory_lock(hashtext(${`cgp-startup:${database.schemaName}`}))`;
      try {
        return await work();
      } finally {
        await connection`select pg_advisory_unlock(hashtext(${`cgp-startup:${database.schemaName}`}))`;
      }
    });
  } finally {
    connection.release();
  }
}
