import { count, eq, sql } from 'drizzle-orm';

import type { Database } from '../../db/client';
import type { SourceType } from './knowledge-chunk';

/** A chunk retrieved for a question, with its source. */
export type RetrievedChunk = {
  readonly key: string;
  readonly type: SourceType;
  readonly id: string;
  readonly version: number | null;
  readonly title: string;
  readonly content: string;
};

/** Reciprocal rank fusion's constant: a chunk's score is the sum of 1 / (RRF_K + rank) over the rankings. */
const RRF_K = 60;

/** How many candidates each ranking offers the fusion, at least. */
const MIN_CANDIDATES = 50;

/** Whether the index holds chunks embedded by `embedderModel` (if not, there is nothing to retrieve). */
export async function hasChunksOf(database: Database, embedderModel: string): Promise<boolean> {
  const t = database.tables.knowledgeChunks;
  const [row] = await database.db.select({ count: count() }).from(t).where(eq(t.embedderModel, embedderModel));
  return row.count > 0;
}

/**
 * The `topK` chunks of `embedderModel` closest to a question, in one SQL statement: one ranking by
 * cosine similarity of the vectors (computed over `real[]`), one by full-text rank of the question's
 * words (`simple` configuration, any word: names and ids match exactly), each word's `ts_rank`
 * weighted by its rarity among the chunks, fused by reciprocal rank.
 */
export async function retrieveChunks(
  database: Database,
  question: { text: string; vector: readonly number[] },
  embedderModel: string,
  topK: number,
): Promise<RetrievedChunk[]> {
  const t = database.tables.knowledgeChunks;
  const candidates = Math.max(MIN_CANDIDATES, topK * 4);
  const vector = `{${question.vector.map(Number).join(',')}}`;
  const rows = await database.db.execute<RetrievedChunk>(sql`
    with chunks as (
      select key, embedding, search from ${t} where embedder_model = ${embedderModel}
    ),
    question as (
      select ${vector}::real[] as vector
    ),
    terms as (
      select distinct to_tsquery('simple', quote_literal(lexeme)) as term from unnest(to_tsvector('simple', ${question.text}))
    ),
    -- A word's weight is its rarity (inverse document frequency): "what" or "policy" weigh little, an id much.
    weighted as (
      select term, ln((select count(*) from chunks)::float8 / count(c.key)) + 1 as weight
      from terms join chunks c on c.search @@ term
      group by term
    ),
    by_vector as (
      select key, row_number() over (order by similarity desc, key) as rank
      from (
        select c.key,
               (select sum(a * b) / nullif(sqrt(sum(a * a)) * sqrt(sum(b * b)), 0) from unnest(c.embedding, q.vector) as pair(a, b)) as similarity
        from chunks c, question q
        where cardinality(c.embedding) = cardinality(q.vector)
      ) scored
      where similarity is not null
      order by similarity desc, key
      limit ${candidates}
    ),
    by_text as (
      select key, row_number() over (order by score desc, key) as rank
      from (
        select c.key, sum(w.weight * ts_rank(c.search, w.term)) as score
        from weighted w join chunks c on c.search @@ w.term
        group by c.key
      ) scored
      order by score desc, key
      limit ${candidates}
    ),
    fused as (
      select key, sum(1.0 / (${RRF_K} + rank)) as score
      from (select key, rank from by_vector union all select key, rank from by_text) ranks
      group by key
    )
    select c.key, c.source_type as type, c.source_id as id, c.source_version as version, c.title, c.content
    from fused f join ${t} c on c.key = f.key
    order by f.score desc, c.key
    limit ${topK}
  `);
  return [...rows];
}
