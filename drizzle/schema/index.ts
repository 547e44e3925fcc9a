import { pgSchema } from 'drizzle-orm/pg-core';

import { accessTables } from './access';
import { assistantTables } from './assistant';
import { auditTables } from './audit';
import { evidenceTables } from './evidence';
import { governanceTables } from './governance';
import { knowledgeTables } from './knowledge';
import { outboxTables } from './outbox';
import { serviceTables } from './service';

/**
 * The tables, placed in the PostgreSQL schema named by `database.schema`, one file per area.
 * Migrations are generated for the schema `cgp` (./for-migrations.cjs) and re-targeted at the
 * configured name when they are applied (lib/db/migrations.ts), so one set of migrations serves
 * every name.
 */
export function defineTables(schemaName: string) {
  const schema = pgSchema(schemaName);
  return {
    schema,
    ...serviceTables(schema),
    ...governanceTables(schema),
    ...assistantTables(schema),
    ...knowledgeTables(schema),
    ...outboxTables(schema),
    ...accessTables(schema),
    ...auditTables(schema),
    ...evidenceTables(schema),
  };
}

export type Tables = ReturnType<typeof defineTables>;

/** The name migrations are generated for. */
export const MIGRATIONS_SCHEMA_NAME = 'cgp';
