import { integer, type PgSchema, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The assistant: its LLM and embedder configurations, and the conversations it holds. */
export function assistantTables(schema: PgSchema) {
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
  /** A chat conversation: whose it is (the caller's subject) and when it began. */
  const conversations = schema.table('conversations', {
    id: uuid('id').primaryKey().defaultRandom(),
    subject: text('subject').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  });
  /** Its turns, numbered from 1; only the last `assistant.conversation.max-turns` are kept. */
  const conversationTurns = schema.table(
    'conversation_turns',
    {
      conversationId: uuid('conversation_id')
        .notNull()
        .references(() => conversations.id, { onDelete: 'cascade' }),
      turn: integer('turn').notNull(),
      query: text('query').notNull(),
      answer: text('answer').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (table) => [primaryKey({ columns: [table.conversationId, table.turn] })],
  );

  return { modelConfigurations, conversations, conversationTurns };
}
