import { integer, jsonb, type PgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The service itself: its start-up runs. */
export function serviceTables(schema: PgSchema) {
  /** One row per run of the start-up tasks, so operators can see when and how each start went. */
  const startupRuns = schema.table('startup_runs', {
    id: uuid('id').primaryKey().defaultRandom(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    fingerprint: text('fingerprint').notNull(),
    tasks: jsonb('tasks').$type<Record<string, string>>().notNull().default({}),
    durationMs: integer('duration_ms'),
  });

  return { startupRuns };
}
