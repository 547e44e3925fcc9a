import { sql } from 'drizzle-orm';
import { type PgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Access: the roles given in the API. */
export function accessTables(schema: PgSchema) {
  /** Roles given in the API (POST /role-bindings), beside those of application.conf. */
  const roleBindings = schema.table('role_bindings', {
    id: uuid('id').primaryKey().defaultRandom(),
    subjects: text('subjects')
      .array()
      .notNull()
      .default(sql`'{}'`),
    groups: text('groups')
      .array()
      .notNull()
      .default(sql`'{}'`),
    roles: text('roles').array().notNull(),
    /** Null: every resource type. */
    resourceTypes: text('resource_types').array(),
    /** Null: every environment. */
    environments: text('environments').array(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  });

  return { roleBindings };
}
