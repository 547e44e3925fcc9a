import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

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

  /** The assistant's LLM and embedder configurations, one row each; the API key only encrypted. */
  const modelConfigurations = schema.table('model_configurations', {
    kind: text('kind', { enum: ['llm', 'embedder'] }).primaryKey(),
    provider: text('provider').notNull(),
    apiKeyCiphertext: text('api_key_ciphertext').notNull(),
    /** The masked key readers see, kept so that reading never needs the plaintext. */
    apiKeyMasked: text('api_key_masked').notNull(),
    endpoint: text('endpoint').notNull(),
    apiVersion: text('api_version').notNull(),
    model: text('model').notNull(),
    deployment: text('deployment').notNull(),
    customHeader: text('custom_header'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: text('updated_by').notNull(),
  });

  /** Resource types, from application.conf (registered at start) or the API. */
  const resourceTypes = schema.table('resource_types', {
    name: text('name').primaryKey(),
    displayName: text('display_name').notNull(),
    /** Null when the type has no descriptor configuration (the caller of Evaluate supplies ids). */
    resourceNameField: text('resource_name_field'),
    resourceDisplayNameFields: jsonb('resource_display_name_fields').$type<string[]>().notNull().default([]),
    resourceFilterField: text('resource_filter_field'),
    batchSize: integer('batch_size'),
    resolverUrl: text('resolver_url').notNull(),
    resolverPath: text('resolver_path').notNull(),
    source: text('source', { enum: ['settings', 'api'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: text('updated_by').notNull(),
  });

  /** The platform's environments as last pulled at start (or the static list of the settings). */
  const environments = schema.table('environments', {
    name: text('name').primaryKey(),
    /** What the platform said about it, as received. */
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    source: text('source', { enum: ['platform', 'settings'] }).notNull(),
    refreshedAt: timestamp('refreshed_at', { withTimezone: true }).notNull().defaultNow(),
  });

  /**
   * Messages to outside receivers (audit records, later notifications and events), written first
   * and delivered after, so that a receiver being down never fails a call nor loses a message.
   */
  const outbox = schema.table(
    'outbox',
    {
      id: bigserial('id', { mode: 'number' }).primaryKey(),
      topic: text('topic', { enum: ['audit'] }).notNull(),
      payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
      attempts: integer('attempts').notNull().default(0),
      nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
      lastError: text('last_error'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    },
    (table) => [index('outbox_pending').on(table.nextAttemptAt).where(sql`delivered_at is null`)],
  );

  return { schema, startupRuns, modelConfigurations, resourceTypes, environments, outbox };
}

export type Tables = ReturnType<typeof defineTables>;

/** The name migrations are generated for. */
export const MIGRATIONS_SCHEMA_NAME = 'cgp';

export const { schema: cgp, startupRuns, modelConfigurations, resourceTypes, environments, outbox } = defineTables(MIGRATIONS_SCHEMA_NAME);
