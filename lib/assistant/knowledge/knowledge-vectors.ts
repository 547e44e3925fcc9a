import type { Database } from '#lib/db/client';
import { logger } from '#lib/logging/logger';

import { KnowledgeChunkRepository } from './knowledge-chunk-repository';

/** A chunk's vector as PostgreSQL holds it (`real`s), its revision, and its sum of squares (both ways). */
interface Entry {
  readonly revision: number;
  readonly vector: Float32Array;
  readonly squares: number;
  readonly approximateSquares: number;
}

/** The vectors of one embedder model, as of the last sync. */
interface Copy {
  model: string;
  /** The table's oid: a table created again numbers its revisions anew. */
  table: string;
  entries: Map<string, Entry>;
  /** The model had more chunks than `assistant.index.max-chunks` at the last sync (said once, not at every question). */
  overfull: boolean;
  /** The sync under way, or the last one: one at a time. */
  turn: Promise<unknown>;
}

/** A chunk and its cosine similarity to the question. */
export interface VectorMatch {
  readonly key: string;
  readonly similarity: number;
}

/** How many changed vectors are read per query. */
const LOAD_BATCH = 500;

/** One copy per pool, so per warm function container (and per test schema). */
const copies = new WeakMap<Database, Copy>();

/**
 * Σ a·b as PostgreSQL's `sum(a * b)` over `real`s computes it: each product and each partial sum
 * rounded to a `real`, in array order. Similarities (and so rankings and ties) are then those that
 * cosine computed in SQL over `real[]` gives.
 */
function sumOfProducts(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum = Math.fround(sum + Math.fround(a[index] * b[index]));
  return sum;
}

/** Σ a·b in float8: fast, and within `precision(a.length)` of sumOfProducts once a cosine. */
function approximateSumOfProducts(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += a[index] * b[index];
  return sum;
}

/**
 * How far a cosine computed with sumOfProducts (`real` arithmetic) can be from the same cosine in
 * float8: a sum of n products rounded to `real`s errs by at most γn = nu / (1 - nu) (u = 2^-24) of
 * Σ|a·b| ≤ |a||b|, the two norms by as much together; about 2γn, here with room to spare.
 */
function precision(dimensions: number): number {
  const nu = (dimensions + 1) * 2 ** -24;
  return (3 * nu) / (1 - nu);
}

function entryOf(revision: number, vector: Float32Array): Entry {
  return { revision, vector, squares: sumOfProducts(vector, vector), approximateSquares: approximateSumOfProducts(vector, vector) };
}

/**
 * Brings the copy up to date: one query reads the revisions of the model's chunks (small rows),
 * then only the vectors of new or re-embedded chunks are read; removed chunks are dropped. Another
 * model (the embedder changed) starts a new copy. It holds at most `assistant.index.max-chunks`
 * vectors, the first by key: refreshes keep the index within that, but another container's setting,
 * or the setting lowered, may have let it grow past.
 */
async function sync(database: Database, copy: Copy, model: string): Promise<void> {
  const repository = new KnowledgeChunkRepository(database);
  const { maxChunks } = database.settings.assistant.index;
  const current = await repository.revisions(model, maxChunks + 1);
  const overfull = current.length > maxChunks;
  if (overfull) current.length = maxChunks;
  if (overfull && !copy.overfull) {
    logger.error(
      { setting: 'assistant.index.max-chunks', maxChunks, embedderModel: model },
      `the knowledge index holds more than ${maxChunks} chunks of ${model} (assistant.index.max-chunks): ` +
        `questions are ranked by vector among the first ${maxChunks} by key only; raise the setting or remove sources`,
    );
  }
  copy.overfull = overfull;
  const table = current[0]?.table ?? copy.table;
  if (copy.model !== model || copy.table !== table) Object.assign(copy, { model, table, entries: new Map() });
  const live = new Set<string>();
  const changed: string[] = [];
  for (const { key, revision } of current) {
    live.add(key);
    if (copy.entries.get(key)?.revision !== revision) changed.push(key);
  }
  for (const key of copy.entries.keys()) if (!live.has(key)) copy.entries.delete(key);
  for (let start = 0; start < changed.length; start += LOAD_BATCH) {
    const batch = changed.slice(start, start + LOAD_BATCH);
    // A chunk removed (or embedded by another model) since the revisions were read is not returned.
    for (const key of batch) copy.entries.delete(key);
    for (const row of await repository.vectors(batch, model)) copy.entries.set(row.key, entryOf(row.revision, row.vector));
  }
}

/**
 * The chunks of `model` most similar to `question` by cosine, most similar first: at least
 * `candidates` of them (more when several share the last similarity: the order among equals is the
 * database's, by key). Ranked in the function from a copy of the vectors kept per pool, brought up
 * to date (with what changed only) before each ranking.
 */
export async function closestVectors(database: Database, model: string, question: readonly number[], candidates: number): Promise<VectorMatch[]> {
  let copy = copies.get(database);
  if (!copy) {
    copy = { model, table: '', entries: new Map(), overfull: false, turn: Promise.resolve() };
    copies.set(database, copy);
  }
  const synced = copy.turn.catch(() => undefined).then(() => sync(database, copy, model));
  copy.turn = synced;
  await synced;
  const asked = entryOf(0, Float32Array.from(question));
  const cosine = (entry: Entry, sum: (a: Float32Array, b: Float32Array) => number, squares: (entry: Entry) => number) =>
    sum(entry.vector, asked.vector) / (Math.sqrt(squares(entry)) * Math.sqrt(squares(asked)));
  // A first pass in float8 finds the few chunks that can be among the closest; the exact cosine
  // (`real` arithmetic, as `sum(a * b) / nullif(sqrt(sum(a * a)) * sqrt(sum(b * b)), 0)`) ranks those.
  const approximate: { key: string; entry: Entry; similarity: number }[] = [];
  for (const [key, entry] of copy.entries) {
    if (entry.vector.length !== asked.vector.length) continue;
    const similarity = cosine(entry, approximateSumOfProducts, (of) => of.approximateSquares);
    // A zero vector has no similarity.
    if (Number.isFinite(similarity)) approximate.push({ key, entry, similarity });
  }
  // The chunks within twice the precision of the last candidate's approximate similarity: all that can rank before it, or with it.
  const threshold =
    approximate.length > candidates
      ? Float64Array.from(approximate, (match) => match.similarity).sort()[approximate.length - candidates] - 2 * precision(asked.vector.length)
      : -Infinity;
  const matches = approximate
    .filter((match) => match.similarity >= threshold)
    .map(({ key, entry }) => ({ key, similarity: cosine(entry, sumOfProducts, (of) => of.squares) }))
    .filter((match) => Number.isFinite(match.similarity))
    .sort((a, b) => b.similarity - a.similarity);
  if (matches.length <= candidates) return matches;
  const last = matches[candidates - 1].similarity;
  let end = candidates;
  while (end < matches.length && matches[end].similarity === last) end++;
  return matches.slice(0, end);
}
