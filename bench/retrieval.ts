/**
 * Bench: grounded chat's retrieval over a knowledge index of 5,000 chunks in an embedded PostgreSQL
 * (`real[]` vectors of 1,536 dimensions, as text-embedding-3-small's; no pgvector there): the time of
 * one hybrid retrieval (cosine in SQL, full-text rank, fusion, top k), p50 and p95 over many questions.
 * Run alone with `node --import tsx bench/retrieval.ts`, or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import { retrieveChunks } from '../lib/assistant/knowledge/knowledge-retrieval';
import { openDatabase } from '../lib/db/client';
import { startBenchDatabase } from './bench-world';

const CHUNKS = 5000;
const DIMENSIONS = 1536;
const QUESTIONS = 60;
const TOP_K = 8;
const MODEL = 'bench-embedder';
const WORDS = ['owner', 'encryption', 'retention', 'schema', 'domain', 'output', 'port', 'quality', 'policy', 'metric', 'tag', 'severity'];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export async function benchRetrieval(): Promise<void> {
  const world = await startBenchDatabase('');
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
      const times: number[] = [];
      for (let question = 0; question < QUESTIONS; question++) {
        const vector = Array.from({ length: DIMENSIONS }, () => Math.random() * 2 - 1);
        const text = `Which policies check the ${WORDS[question % WORDS.length]} of a data product, like p${(question * 83) % CHUNKS}?`;
        const started = performance.now();
        const chunks = await retrieveChunks(database, { text, vector }, MODEL, TOP_K);
        times.push(performance.now() - started);
        if (chunks.length !== TOP_K) throw new Error(`retrieval answered ${chunks.length} chunks, expected ${TOP_K}`);
      }
      // The first questions warm the connection and PostgreSQL's caches.
      const sorted = times.slice(5).sort((a, b) => a - b);
      console.log(
        `retrieval over ${CHUNKS} chunks of ${DIMENSIONS} dimensions (real[]; pgvector is not in the embedded PostgreSQL), top ${TOP_K}, ${sorted.length} questions: ` +
          `p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms`,
      );
    } finally {
      await database.close();
    }
  } finally {
    await world.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchRetrieval();
