import { count, eq, type SQL, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';

import type { SourceType } from './knowledge-chunk';
import { closestVectors } from './knowledge-vectors';
import { vectorStoreOf } from './vector-store';

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

/** A ranking the fusion reads: rows of (`key`, `rank`), rank 1 the best. */
const ranking = (rows: readonly { key: string; rank: number }[]) =>
  sql`select key, rank from json_to_recordset(${JSON.stringify(rows)}::json) as ranked(key text, rank int)`;

/**
 * The vector ranking, `candidates` long. With pgvector, PostgreSQL ranks by `<=>` (cosine distance)
 * over the generated `vector` column; otherwise the function ranks from its in-memory copy of the
 * `real[]` vectors and hands the best to the fusion, which orders them by similarity then key (the
 * database's collation), as cosine computed in SQL over `real[]` did.
 */
async function vectorRanking(database: Database, question: readonly number[], embedderModel: string, candidates: number): Promise<SQL> {
  const t = database.tables.knowledgeChunks;
  const store = await vectorStoreOf(database);
  if (store.type === 'pgvector') {
    const extension = sql.identifier(store.schema);
    const vector = sql`${`[${question.map(Number).join(',')}]`}::${extension}.vector`;
    const rows = await database.db.execute<{ key: string; rank: number }>(sql`
      select key, (row_number() over (order by distance, key))::int as rank
      from (
        -- <=> fails on vectors of two lengths: a case, as PostgreSQL may test the conditions of a where in any order.
        select key, case when ${extension}.vector_dims(embedding_vector) = ${question.length} then embedding_vector operator(${extension}.<=>) ${vector} end as distance
        from ${t}
        where embedder_model = ${embedderModel}
      ) scored
      -- Null (another length) and NaN (a vector without direction) have no rank.
      where distance <> 'NaN'
      order by distance, key
      limit ${candidates}`);
    return ranking([...rows]);
  }
  const matches = JSON.stringify(await closestVectors(database, embedderModel, question, candidates));
  return sql`
    select key, row_number() over (order by similarity desc, key) as rank
    from json_to_recordset(${matches}::json) as matched(key text, similarity float8)
    order by similarity desc, key
    limit ${candidates}`;
}

/**
 * The full-text ranking, `candidates` long: any word of the question (`simple` configuration: names
 * and ids match exactly), each word's `ts_rank` weighted by its rarity among the chunks of the model.
 */
async function textRanking(database: Database, text: string, embedderModel: string, candidates: number): Promise<SQL> {
  const t = database.tables.knowledgeChunks;
  const rows = await database.db.execute<{ key: string; rank: number }>(sql`
    with chunks as (
      select key, search from ${t} where embedder_model = ${embedderModel}
    ),
    terms as (
      select term, row_number() over () as id
      from (select distinct to_tsquery('simple', quote_literal(lexeme)) as term from unnest(to_tsvector('simple', ${text}))) distinct_terms
    ),
    -- Each (chunk, word) match once: its rank, and (counted) the word's rarity.
    matches as materialized (
      select c.key, t.id, ts_rank(c.search, t.term) as rank from terms t join chunks c on c.search @@ t.term
    ),
    -- A word's weight is its rarity (inverse document frequency): "what" or "policy" weigh little, an id much.
    weighted as (
      select id, ln((select count(*) from chunks)::float8 / count(*)) + 1 as weight from matches group by id
    )
    select key, (row_number() over (order by score desc, key))::int as rank
    from (
      -- Summed in one order, so that chunks of the same words tie exactly (and then go by key).
      select m.key, sum(w.weight * m.rank order by m.id) as score
      from matches m join weighted w on w.id = m.id
      group by m.key
    ) scored
    order by score desc, key
    limit ${candidates}`);
  return ranking([...rows]);
}

/**
 * The `topK` chunks of `embedderModel` closest to a question: the vector ranking and the full-text
 * ranking (computed at the same time: the first in the function or by pgvector, the second by
 * PostgreSQL), fused by reciprocal rank in SQL, which reads the chosen chunks.
 */
export async function retrieveChunks(
  database: Database,
  question: { text: string; vector: readonly number[] },
  embedderModel: string,
  topK: number,
): Promise<RetrievedChunk[]> {
  const t = database.tables.knowledgeChunks;
  const candidates = Math.max(MIN_CANDIDATES, topK * 4);
  const [byText, byVector] = await Promise.all([
    textRanking(database, question.text, embedderModel, candidates),
    vectorRanking(database, question.vector, embedderModel, candidates),
  ]);
  const rows = await database.db.execute<RetrievedChunk>(sql`
    with fused as (
      select key, sum(1.0 / (${RRF_K} + rank)) as score
      from (select key, rank from (${byVector}) by_vector union all select key, rank from (${byText}) by_text) ranks
      group by key
    )
    select c.key, c.source_type as type, c.source_id as id, c.source_version as version, c.title, c.content
    from fused f join ${t} c on c.key = f.key
    where c.embedder_model = ${embedderModel}
    order by f.score desc, c.key
    limit ${topK}
  `);
  return [...rows];
}
