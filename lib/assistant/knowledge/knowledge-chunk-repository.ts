import { and, asc, count, eq, inArray, lte, max, or, type SQL, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';

import type { KnowledgeChunk, SourceType } from './knowledge-chunk';
import type { IndexScope, SourceRef } from './knowledge-sources';

/** What a refresh compares with: the source, the hash and the embedder model of each stored chunk. */
export interface StoredChunk {
  readonly sourceType: SourceType;
  readonly sourceId: string;
  readonly contentHash: string;
  readonly embedderModel: string;
}

/** A source marked stale, and when (the database's clock, to the millisecond). */
export interface StaleMark extends SourceRef {
  readonly markedAt: Date;
}

/** A list as one parameter (any number of elements): `select jsonb_array_elements_text(...)`. */
const textsOf = (values: readonly string[]) => sql`select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)`;

/**
 * The elements of a one-dimensional `real[]` in PostgreSQL's binary format: a header (dimensions,
 * null flag, element type), the length and lower bound of the dimension, then each element as its
 * byte length (4) and a big-endian float.
 */
function realsOf(binary: Buffer): Float32Array {
  if (binary.readInt32BE(0) === 0) return new Float32Array(0);
  const reals = new Float32Array(binary.readInt32BE(12));
  for (let index = 0, offset = 24; index < reals.length; index++, offset += 8) reals[index] = binary.readFloatBE(offset);
  return reals;
}

/**
 * The stored chunks, their vectors a `real[]` each (and a generated pgvector column where the
 * extension could be created). Each write of a chunk gives it a new revision, so an in-memory copy of
 * the vectors reloads only what changed.
 */
export class KnowledgeChunkRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.knowledgeChunks;
  }

  /** The chunks stored in `scope`, by key. */
  async stored(scope: IndexScope): Promise<Map<string, StoredChunk>> {
    const t = this.table;
    const parts: SQL[] = [];
    if (scope.types.length > 0) parts.push(sql`${t.sourceType} = any(array(${textsOf(scope.types)}))`);
    if (scope.sources.length > 0) {
      parts.push(
        sql`(${t.sourceType}, ${t.sourceId}) in (select type, id from jsonb_to_recordset(${JSON.stringify(scope.sources)}::jsonb) as source(type text, id text))`,
      );
    }
    if (parts.length === 0) return new Map();
    const rows = await this.database.db
      .select({ key: t.key, sourceType: t.sourceType, sourceId: t.sourceId, contentHash: t.contentHash, embedderModel: t.embedderModel })
      .from(t)
      .where(or(...parts));
    return new Map(rows.map(({ key, ...stored }) => [key, stored]));
  }

  /** How many chunks the index holds, of every embedder model. */
  async total(): Promise<number> {
    const [row] = await this.database.db.select({ count: count() }).from(this.table);
    return row.count;
  }

  /** Writes embedded chunks, replacing those of the same keys. */
  async save(chunks: readonly KnowledgeChunk[], vectors: readonly number[][], embedderModel: string): Promise<void> {
    if (chunks.length === 0) return;
    const t = this.table;
    const rows = chunks.map((chunk, index) => ({
      key: chunk.key,
      sourceType: chunk.source.type,
      sourceId: chunk.source.id,
      sourceVersion: chunk.source.version ?? null,
      title: chunk.source.title,
      content: chunk.content,
      contentHash: chunk.contentHash,
      embedderModel,
      embedding: vectors[index],
    }));
    await this.database.db
      .insert(t)
      .values(rows)
      .onConflictDoUpdate({
        target: t.key,
        set: {
          sourceType: sql`excluded.source_type`,
          sourceId: sql`excluded.source_id`,
          sourceVersion: sql`excluded.source_version`,
          title: sql`excluded.title`,
          content: sql`excluded.content`,
          contentHash: sql`excluded.content_hash`,
          embedderModel: sql`excluded.embedder_model`,
          embedding: sql`excluded.embedding`,
          embeddedAt: sql`now()`,
          revision: sql`default`,
        },
      });
  }

  /**
   * The revision of the chunks of `embedderModel`, the first `limit` by key, and the table's identity
   * (its oid: a table dropped and created again numbers its revisions anew).
   */
  async revisions(embedderModel: string, limit: number): Promise<{ key: string; revision: number; table: string }[]> {
    const t = this.table;
    return this.database.db
      .select({ key: t.key, revision: t.revision, table: sql<string>`${t}.tableoid::text` })
      .from(t)
      .where(eq(t.embedderModel, embedderModel))
      .orderBy(asc(t.key))
      .limit(limit);
  }

  /**
   * The vectors of these chunks of `embedderModel`, with their revisions. In PostgreSQL's binary
   * array format (`array_send`): the `real`s exactly, and about twice as fast to write and read as
   * any text form (5,000 vectors of 1,536 dimensions: about 0.6 s, against 1.1 s as JSON).
   */
  async vectors(keys: readonly string[], embedderModel: string): Promise<{ key: string; revision: number; vector: Float32Array }[]> {
    const t = this.table;
    const rows = await this.database.db
      .select({ key: t.key, revision: t.revision, binary: sql<Buffer>`array_send(${t.embedding})` })
      .from(t)
      .where(and(inArray(t.key, [...keys]), eq(t.embedderModel, embedderModel)));
    return rows.map(({ binary, ...row }) => ({ ...row, vector: realsOf(binary) }));
  }

  /** Deletes the chunks of these keys; returns how many were there. */
  async remove(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const t = this.table;
    const removed = await this.database.db
      .delete(t)
      .where(sql`${t.key} = any(array(${textsOf(keys)}))`)
      .returning({ key: t.key });
    return removed.length;
  }

  async countsBySourceType(): Promise<Partial<Record<SourceType, number>>> {
    const t = this.table;
    const rows = await this.database.db.select({ type: t.sourceType, count: count() }).from(t).groupBy(t.sourceType);
    return Object.fromEntries(rows.map((row) => [row.type, row.count]));
  }

  /** How many sources are marked, and the newest mark (the database's clock), if any. */
  async staleMarks(): Promise<{ count: number; newest: Date | null }> {
    const t = this.database.tables.knowledgeStaleSources;
    const [row] = await this.database.db.select({ count: count(), newest: max(t.markedAt) }).from(t);
    return row;
  }

  /** At most `limit` marks made at `upTo` or before, in the order of their sources, those after `after`. */
  async marks(upTo: Date, limit: number, after?: SourceRef): Promise<StaleMark[]> {
    const t = this.database.tables.knowledgeStaleSources;
    const rows = await this.database.db
      .select({ type: t.sourceType, id: t.sourceId, markedAt: t.markedAt })
      .from(t)
      .where(and(lte(t.markedAt, upTo), after && sql`(${t.sourceType}, ${t.sourceId}) > (${after.type}, ${after.id})`))
      .orderBy(asc(t.sourceType), asc(t.sourceId))
      .limit(limit);
    return rows.map((row) => ({ ...row, type: row.type as SourceType }));
  }

  /** Clears these marks, each unless made again since (a change during the refresh waits for the next). */
  async clearMarks(marks: readonly StaleMark[]): Promise<void> {
    if (marks.length === 0) return;
    const t = this.database.tables.knowledgeStaleSources;
    await this.database.db.execute(sql`
      delete from ${t} using jsonb_to_recordset(${JSON.stringify(marks)}::jsonb) as mark(type text, id text, "markedAt" timestamptz)
      where ${t.sourceType} = mark.type and ${t.sourceId} = mark.id and ${t.markedAt} <= mark."markedAt"`);
  }

  /** Clears the marks up to `newest`, those a refresh took into account: later ones wait for the next. */
  async clearStale(newest: Date): Promise<void> {
    const t = this.database.tables.knowledgeStaleSources;
    await this.database.db.delete(t).where(lte(t.markedAt, newest));
  }

  async recordRefresh(embedderModel: string): Promise<void> {
    const t = this.database.tables.knowledgeIndexRefreshes;
    const values = { embedderModel, refreshedAt: new Date() };
    await this.database.db
      .insert(t)
      .values({ singleton: true, ...values })
      .onConflictDoUpdate({ target: t.singleton, set: values });
  }

  async lastRefresh(): Promise<{ embedderModel: string; refreshedAt: Date } | undefined> {
    const t = this.database.tables.knowledgeIndexRefreshes;
    const [row] = await this.database.db.select({ embedderModel: t.embedderModel, refreshedAt: t.refreshedAt }).from(t);
    return row;
  }
}
