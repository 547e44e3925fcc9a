import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, index, integer, type PgSchema, primaryKey, real, text, timestamp } from 'drizzle-orm/pg-core';

/** PostgreSQL's full-text document type; only PostgreSQL writes it (a generated column). */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** The assistant's knowledge index: chunks of the platform's own data with their vectors, and what is stale. */
export function knowledgeTables(schema: PgSchema) {
  /**
   * The assistant's knowledge index: the platform's texts in chunks, each with its source, the hash
   * of what was embedded and the vector of the embedder model that embedded it. Vectors are plain
   * `real[]` (the embedded PostgreSQL has no pgvector): each function ranks them from an in-memory
   * copy. Where pgvector can be created, the start-up tasks add a generated `embedding_vector`
   * column of type `vector` (lib/assistant/knowledge/vector-store.ts), and PostgreSQL ranks.
   */
  const knowledgeChunks = schema.table(
    'knowledge_chunks',
    {
      /** The source and the part of it: `<type>:<id>[:<version>]#<part>`. */
      key: text('key').primaryKey(),
      sourceType: text('source_type', { enum: ['policy', 'metric', 'resource_type', 'environment', 'guide', 'results'] }).notNull(),
      sourceId: text('source_id').notNull(),
      sourceVersion: integer('source_version'),
      title: text('title').notNull(),
      content: text('content').notNull(),
      /** sha256 of title and content: a chunk whose hash is unchanged is not embedded again. */
      contentHash: text('content_hash').notNull(),
      embedderModel: text('embedder_model').notNull(),
      embedding: real('embedding').array().notNull(),
      search: tsvector('search')
        .notNull()
        .generatedAlwaysAs(sql`to_tsvector('simple', title || ' ' || content)`),
      embeddedAt: timestamp('embedded_at', { withTimezone: true }).notNull().defaultNow(),
      /** A new number (a sequence's) at each write of the row: an in-memory copy of the vectors reloads only the rows whose revision changed. */
      revision: bigint('revision', { mode: 'number' }).notNull().generatedByDefaultAsIdentity(),
    },
    (table) => [index('knowledge_chunks_source').on(table.sourceType, table.sourceId), index('knowledge_chunks_search').using('gin', table.search)],
  );
  /** Sources changed since the last refresh (marked through the outbox): the scheduled refresher embeds what changed. */
  const knowledgeStaleSources = schema.table(
    'knowledge_stale_sources',
    {
      sourceType: text('source_type').notNull(),
      sourceId: text('source_id').notNull(),
      // Milliseconds, as a JavaScript Date holds them: the refresh clears the marks up to the newest it read.
      markedAt: timestamp('marked_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    },
    (table) => [primaryKey({ columns: [table.sourceType, table.sourceId] })],
  );
  /** One row: when the knowledge index was last refreshed, and with which embedder model. */
  const knowledgeIndexRefreshes = schema.table('knowledge_index_refreshes', {
    singleton: boolean('singleton').primaryKey().default(true),
    embedderModel: text('embedder_model').notNull(),
    refreshedAt: timestamp('refreshed_at', { withTimezone: true }).notNull().defaultNow(),
  });

  return { knowledgeChunks, knowledgeStaleSources, knowledgeIndexRefreshes };
}
