/**
 * Bench: grounded chat's retrieval over a knowledge index of 5,000 chunks (vectors of 1,536
 * dimensions, as text-embedding-3-small's): the time of one hybrid retrieval (vector ranking,
 * full-text rank, fusion, top k), p50 and p95 over many questions, on each vector store:
 * - `real[]` ranked in the function from its in-memory copy, on the embedded PostgreSQL (no
 *   pgvector there); also the first retrieval of a container (it loads every vector) and the one
 *   after some chunks were embedded again (it reads those only);
 * - pgvector, on a PostgreSQL of this machine that has it (scripts/pgvector-postgres.ts), if any.
 * Run alone with `node --import tsx bench/retrieval.ts`, or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import { retrieveChunks } from '#lib/assistant/knowledge/knowledge-retrieval';
import { vectorStoreOf } from '#lib/assistant/knowledge/vector-store';
import { type Database, openDatabase } from '#lib/db/client';

import type { LocalPostgres } from '../scripts/local-postgres';
import { PGVECTOR_MISSING, startPgvectorPostgres } from '../scripts/pgvector-postgres';
import { startBenchDatabase } from './bench-world';

const CHUNKS = 5000;
const DIMENSIONS = 1536;
const QUESTIONS = 60;
const RE_EMBEDDED = 50;
const TOP_K = 8;
const MODEL = 'bench-embedder';
const WORDS = ['owner', 'encryption', 'retention', 'schema', 'domain', 'output', 'port', 'quality', 'policy', 'metric', 'tag', 'severity'];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const randomVector = () => Array.from({ length: DIMENSIONS }, () => Math.random() * 2 - 1);

/** One retrieval of question number `question`, timed (ms). */
async function timedRetrieval(database: Database, question: number): Promise<number> {
  const text = `Which policies check the ${WORDS[question % WORDS.length]} of a data product, like p${(question * 83) % CHUNKS}?`;
  const started = performance.now();
  const chunks = await retrieveChunks(database, { text, vector: randomVector() }, MODEL, TOP_K);
  const elapsed = performance.now() - started;
  if (chunks.length !== TOP_K) throw new Error(`retrieval answered ${chunks.length} chunks, expected ${TOP_K}`);
  return elapsed;
}

/** p50 and p95 of `QUESTIONS` retrievals; the first ones warm the connection and PostgreSQL's caches. */
async function percentiles(database: Database): Promise<string> {
  const times: number[] = [];
  for (let question = 0; question < QUESTIONS; question++) times.push(await timedRetrieval(database, question));
  const sorted = times.slice(5).sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms (${sorted.length} questions)`;
}

/** A bench database (`server`, or the embedded PostgreSQL) holding the index, and what `measure` prints of it. */
async function onIndex(server: (() => Promise<LocalPostgres>) | undefined, measure: (database: Database) => Promise<string>): Promise<string> {
  const world = await startBenchDatabase('', server);
  try {
    const database = openDatabase(world.settings);
    try {
      await database.sql.unsafe(
        `insert into bench.knowledge_chunks (key, source_type, source_id, source_version, title, content, content_hash, embedder_model, embedding)
         select 'policy:p' || i || ':1#0', 'policy', 'p' || i, 1, 'Policy ' || i,
                'Policy ' || i || ' checks the ' || ($1::text[])[1 + i % 12] || ' and the ' || ($1::text[])[1 + (i / 12) % 12] || ' of every data product. Id: p' || i || '. ' || repeat(md5(i::text) || ' ', 20),
                md5(i::text), $2, array(select (random() * 2 - 1)::real from generate_series(1, ${DIMENSIONS}) where i > 0)
         from generate_series(1, ${CHUNKS}) as i`,
        [WORDS, MODEL],
      );
      await database.sql.unsafe('analyze bench.knowledge_chunks');
      return await measure(database);
    } finally {
      await database.close();
    }
  } finally {
    await world.stop();
  }
}

/** The in-memory ranking: a container's first retrieval, the warm ones, and one after a refresh embedded some chunks again. */
async function inMemory(database: Database): Promise<string> {
  const first = await timedRetrieval(database, 0);
  // The copy holds each vector as 4-byte reals (what the process holds besides is garbage by then).
  const copyMb = (CHUNKS * DIMENSIONS * 4) / 2 ** 20;
  const warm = await percentiles(database);
  await database.sql.unsafe(
    `update bench.knowledge_chunks set embedding = array(select (random() * 2 - 1)::real from generate_series(1, ${DIMENSIONS}) where key is not null), revision = default
     where key in (select key from bench.knowledge_chunks order by random() limit ${RE_EMBEDDED})`,
  );
  const afterRefresh = await timedRetrieval(database, 1);
  return (
    `${warm}; a container's first retrieval ${first.toFixed(0)} ms (reads all ${CHUNKS} vectors: ${copyMb.toFixed(0)} MB of reals in memory); ` +
    `the first after ${RE_EMBEDDED} chunks were embedded again ${afterRefresh.toFixed(0)} ms (reads those ${RE_EMBEDDED})`
  );
}

export async function benchRetrieval(): Promise<void> {
  console.log(`retrieval over ${CHUNKS} chunks of ${DIMENSIONS} dimensions, top ${TOP_K}:`);
  console.log(`  real[] ranked in the function (embedded PostgreSQL): ${await onIndex(undefined, inMemory)}`);
  const server = await startPgvectorPostgres();
  if (!server) {
    console.log(`  pgvector: not available here (${PGVECTOR_MISSING})`);
    return;
  }
  const pgvector = await onIndex(
    async () => server,
    async (database) => {
      if ((await vectorStoreOf(database)).type !== 'pgvector') throw new Error('the start-up tasks did not choose pgvector on a server that has it');
      const [{ version }] = await database.sql<{ version: string }[]>`select current_setting('server_version') as version`;
      return `(exact <=>, PostgreSQL ${version} of this machine): ${await percentiles(database)}`;
    },
  );
  console.log(`  pgvector ${pgvector}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchRetrieval();
