import { bigserial, customType, index, integer, jsonb, type PgSchema, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** Evidence for auditors (docs/evidence.md): the packs asked for, and the history a pack of a past moment reads. */
export function evidenceTables(schema: PgSchema) {
  /** An evidence pack: asked for, built in the background by the evaluation worker, its zip kept in evidence_pack_parts. */
  const evidencePacks = schema.table(
    'evidence_packs',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      status: text('status', { enum: ['pending', 'running', 'completed', 'failed'] })
        .notNull()
        .default('pending'),
      at: timestamp('at', { withTimezone: true }).notNull(),
      /** Null: every environment (resource type). */
      environments: jsonb('environments').$type<string[]>(),
      resourceTypes: jsonb('resource_types').$type<string[]>(),
      requestedBy: text('requested_by').notNull(),
      requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
      /** When its message last reached the queue; null: to be sent (by the sweeper, when not at once). */
      sentAt: timestamp('sent_at', { withTimezone: true }),
      /** A build holds the pack until then; past it, the sweeper hands the pack on again. */
      leaseUntil: timestamp('lease_until', { withTimezone: true }),
      attempts: integer('attempts').notNull().default(0),
      error: text('error'),
      completedAt: timestamp('completed_at', { withTimezone: true }),
      summary: jsonb('summary').$type<Record<string, number>>(),
      sha256: text('sha256'),
      size: integer('size'),
    },
    (table) => [index('evidence_packs_by_time').on(table.requestedAt)],
  );

  /**
   * A pack's zip, in parts of 4 MiB (the most an answer of GET /evidence/{id}/pack carries), written as
   * the build makes them: a build never holds the whole zip. `attempt` is the build's (evidence_packs.attempts).
   */
  const evidencePackParts = schema.table(
    'evidence_pack_parts',
    {
      packId: uuid('pack_id').notNull(),
      attempt: integer('attempt').notNull(),
      part: integer('part').notNull(),
      bytes: bytea('bytes').notNull(),
    },
    (table) => [primaryKey({ columns: [table.packId, table.attempt, table.part] })],
  );

  /**
   * Every status a policy or metric version took, and when: written by the database (a trigger on
   * governance_entities), with the version's row as it was, so that a pack shows what was in force at a
   * past moment, also of a policy deleted since.
   */
  const entityStatuses = schema.table(
    'governance_entity_statuses',
    {
      id: bigserial('id', { mode: 'number' }).primaryKey(),
      entityId: uuid('entity_id').notNull(),
      version: integer('version').notNull(),
      status: text('status', { enum: ['draft', 'grace', 'enabled', 'disabled'] }).notNull(),
      since: timestamp('since', { withTimezone: true }).notNull(),
      changedBy: text('changed_by').notNull(),
      /** The governance_entities row of the version at that moment (to_jsonb). */
      entity: jsonb('entity').$type<Record<string, unknown>>().notNull(),
    },
    (table) => [index('governance_entity_statuses_by_time').on(table.since)],
  );

  /** Exceptions deleted (by DELETE /exceptions/{id}, or with their policy), as they were: a pack of a moment before shows them. */
  const removedExceptions = schema.table('governance_exceptions_removed', {
    id: uuid('id').primaryKey(),
    removedAt: timestamp('removed_at', { withTimezone: true }).notNull(),
    /** The governance_exceptions row (to_jsonb). */
    exception: jsonb('exception').$type<Record<string, unknown>>().notNull(),
  });

  return { evidencePacks, evidencePackParts, entityStatuses, removedExceptions };
}
