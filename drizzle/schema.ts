import { integer, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The tables, placed in the PostgreSQL schema named by `database.schema`. Migrations are
 * generated for the schema `cgp` (the exports below) and re-targeted at the configured name
 * when they are applied (lib/db/migrations.ts), so one set of migrations serves every name.
 */
export function defineTables(schemaName: string) {
  const schema = pgSchema(schemaName);

  /** One row per run of the start-up tasks, so operators can see when and how each start went. */
  const startupRuns = schema.table('startup_runs', {
    id: uuid('id').primaryKey().defaultRandom(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    fingerprint: text('fingerprint').notNull(),
    tasks: jsonb('tasks').$type<Record<string, string>>().notNull().default({}),
    durationMs: integer('duration_ms'),
  });

  return { schema, startupRuns };
}

export type Tables = ReturnType<typeof defineTables>;

/** The name migrations are generated for. */
export const MIGRATIONS_SCHEMA_NAME = 'cgp';

export const { schema: cgp, startupRuns } = defineTables(MIGRATIONS_SCHEMA_NAME);
