import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';

import { KnowledgeChunkRepository } from '#lib/assistant/knowledge/knowledge-chunk-repository';
import { retrieveChunks } from '#lib/assistant/knowledge/knowledge-retrieval';
import { closestVectors } from '#lib/assistant/knowledge/knowledge-vectors';
import { type Database, openDatabase } from '#lib/db/client';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { PGVECTOR_MISSING, pgvectorBinaries, startPgvectorPostgres } from '../../scripts/pgvector-postgres';
import { captureLogs } from '../support/log-capture';
import { settingsWith } from '../support/settings-files';

const SCHEMA = 'it_knowledge_vectors';
const MODEL = 'embedder-a';
const DIMENSIONS = 8;
/** A question whose words no chunk has: the vector ranking alone decides. */
const NO_WORD = 'zzqx';

/** A deterministic vector per seed, spread over all directions. */
const vectorOf = (seed: number, dimensions = DIMENSIONS) => Array.from({ length: dimensions }, (_, d) => Math.sin(seed * 7.31 + d * 1.17 + seed * d * 0.013));

const chunk = (id: string) => ({
  key: `policy:${id}:1#0`,
  source: { type: 'policy' as const, id, version: 1, title: `Policy ${id}` },
  content: `Text of ${id}`,
  contentHash: id,
});

/**
 * What grounded chat's vector ranking was before it moved out of SQL: cosine computed by
 * PostgreSQL over `real[]`, most similar first, ties by key; a zero vector or another length has no rank.
 */
async function rankedInSql(database: Database, question: number[], model: string): Promise<string[]> {
  const rows = await database.sql.unsafe<{ key: string }[]>(
    `select key from (
       select c.key, (select sum(a * b) / nullif(sqrt(sum(a * a)) * sqrt(sum(b * b)), 0) from unnest(c.embedding, $1::real[]) as pair(a, b)) as similarity
       from "${SCHEMA}".knowledge_chunks c
       where c.embedder_model = $2 and cardinality(c.embedding) = cardinality($1::real[])
     ) scored
     where similarity is not null
     order by similarity desc, key`,
    [question, model],
  );
  return rows.map((row) => row.key);
}

const retrieved = async (database: Database, question: number[], model = MODEL, topK = 50) =>
  (await retrieveChunks(database, { text: NO_WORD, vector: question }, model, topK)).map((found) => found.key);

/** A schema prepared by the start-up tasks on the server `server` answers, and the vector store they chose there. */
function vectorStoreSuite(server: () => Promise<{ url: string; stop?: () => Promise<void> }>) {
  let database: Database;
  let repository: KnowledgeChunkRepository;
  let store: string;
  let stopServer: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const { url, stop } = await server();
    stopServer = stop;
    const settings = await settingsWith(`computational-governance-platform.database.schema = "${SCHEMA}"`, url);
    database = openDatabase(settings);
    await database.sql.unsafe(`drop schema if exists "${SCHEMA}" cascade`);
    store = (await runStartupTasks(settings)).tasks.vectorStore;
    repository = new KnowledgeChunkRepository(database);
  });

  afterAll(async () => {
    await database?.close();
    await stopServer?.();
  });

  return {
    store: () => store,
    database: () => database,
    repository: () => repository,
  };
}

function retrievalTests(world: ReturnType<typeof vectorStoreSuite>) {
  const ids = Array.from({ length: 30 }, (_, index) => `p${index}`);

  it('ranks as cosine over real[] in SQL did: same order, equal similarities by key, no zero vector, no other length', async () => {
    const repository = world.repository();
    const question = vectorOf(1000);
    await repository.save(
      ids.map(chunk),
      ids.map((_, index) => vectorOf(index)),
      MODEL,
    );
    // Three chunks as close as can be (the question itself), written out of key order; one without direction; one of another length.
    await repository.save([chunk('tie-c'), chunk('tie-a'), chunk('tie-b')], [question, question, question], MODEL);
    await repository.save([chunk('zero'), chunk('short')], [new Array(DIMENSIONS).fill(0), vectorOf(5, DIMENSIONS - 1)], MODEL);

    const expected = await rankedInSql(world.database(), question, MODEL);
    expect(expected.slice(0, 3)).toEqual(['policy:tie-a:1#0', 'policy:tie-b:1#0', 'policy:tie-c:1#0']);
    expect(expected).toHaveLength(ids.length + 3);
    expect(await retrieved(world.database(), question)).toEqual(expected);
  });

  it('follows a re-embedded chunk, a removed chunk and another embedder model without a restart, reading only what changed', async () => {
    const database = world.database();
    const repository = world.repository();
    const question = vectorOf(2000);
    // Ranked in the function, it reads the changed vectors; with pgvector, PostgreSQL ranks and the function reads none.
    const inMemory = world.store() !== 'pgvector';
    await retrieved(database, question);
    const reads = vi.spyOn(KnowledgeChunkRepository.prototype, 'vectors');
    try {
      // p7 re-embedded as the question itself: first from now on.
      await repository.save([chunk('p7')], [question], MODEL);
      const afterChange = await retrieved(database, question);
      expect(afterChange[0]).toBe('policy:p7:1#0');
      expect(afterChange).toEqual(await rankedInSql(database, question, MODEL));
      expect(reads.mock.calls.map(([keys]) => keys)).toEqual(inMemory ? [['policy:p7:1#0']] : []);

      reads.mockClear();
      await repository.remove(['policy:p7:1#0']);
      const afterRemoval = await retrieved(database, question);
      expect(afterRemoval).not.toContain('policy:p7:1#0');
      expect(afterRemoval).toEqual(await rankedInSql(database, question, MODEL));
      expect(reads).not.toHaveBeenCalled();

      // Another model embeds everything again: only its vectors are ranked, those of the old model are gone.
      reads.mockClear();
      await repository.save(
        ids.map(chunk),
        ids.map((_, index) => vectorOf(index + 500)),
        'embedder-b',
      );
      const otherModel = await retrieved(database, question, 'embedder-b');
      expect(otherModel).toHaveLength(ids.length);
      expect(otherModel).toEqual(await rankedInSql(database, question, 'embedder-b'));
      expect(reads).toHaveBeenCalledTimes(inMemory ? 1 : 0);
      // Left of the first model: the three ties (the zero vector and the shorter one have no rank).
      expect(await retrieved(database, question)).toEqual(['policy:tie-a:1#0', 'policy:tie-b:1#0', 'policy:tie-c:1#0']);
    } finally {
      reads.mockRestore();
    }
  });

  it('finds nothing when the question vector has no direction', async () => {
    expect(await retrieved(world.database(), new Array(DIMENSIONS).fill(0), 'embedder-b')).toEqual([]);
  });
}

describe('the real[] store, ranked in the function (the test PostgreSQL)', () => {
  const world = vectorStoreSuite(async () => ({ url: inject('databaseUrl') }));
  let testServerHasPgvector = false;
  beforeAll(async () => {
    testServerHasPgvector = (await world.database().sql`select 1 from pg_available_extensions where name = 'vector'`).length > 0;
  });

  it('is the store chosen where pgvector is not installed, and says so', () => {
    // DATABASE_URL may name a server with pgvector: it is then used (the pgvector suite below covers it).
    if (testServerHasPgvector) expect(world.store()).toBe('pgvector');
    else expect(world.store()).toBe('real[], ranked in memory (pgvector is not installed on this PostgreSQL server)');
  });

  describe('retrieval', () => retrievalTests(world));

  it('computes each similarity bit for bit as PostgreSQL did over real[] (a float8 computation would reorder near ties)', async () => {
    const dimensions = 256;
    let seed = 1;
    // A Lehmer generator: the same values at each run, all over [-1, 1).
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const wide = Array.from({ length: 1000 }, (_, index) => chunk(`wide-${index}`));
    await world.repository().save(
      wide,
      wide.map(() => Array.from({ length: dimensions }, random)),
      'embedder-wide',
    );
    const question = Array.from({ length: dimensions }, random);
    const expected = await world.database().sql.unsafe<{ key: string; similarity: number }[]>(
      `select c.key, (select sum(a * b) / nullif(sqrt(sum(a * a)) * sqrt(sum(b * b)), 0) from unnest(c.embedding, $1::real[]) as pair(a, b)) as similarity
       from "${SCHEMA}".knowledge_chunks c where c.embedder_model = 'embedder-wide'`,
      [question],
    );
    const computed = await closestVectors(world.database(), 'embedder-wide', question, wide.length);
    const byKey = (matches: readonly { key: string; similarity: number }[]) => Object.fromEntries(matches.map(({ key, similarity }) => [key, similarity]));
    expect(byKey(computed)).toEqual(byKey(expected));
    // Asked for fewer, it ranks exactly the few a first float8 pass keeps: the same best ones.
    const best = [...expected].sort((a, b) => b.similarity - a.similarity).slice(0, 20);
    expect(byKey(await closestVectors(world.database(), 'embedder-wide', question, 20))).toEqual(byKey(best));
  });

  it('holds at most assistant.index.max-chunks vectors, the first by key, and says once that the index holds more', async () => {
    const capped = Array.from({ length: 30 }, (_, index) => chunk(`capped-${String(index).padStart(2, '0')}`));
    await world.repository().save(
      capped,
      capped.map((_, index) => vectorOf(index)),
      'embedder-capped',
    );
    // A pool of a container whose setting is lower than what the index holds (set lower since, or another container's).
    const small = openDatabase(
      await settingsWith(
        `computational-governance-platform.database.schema = "${SCHEMA}"\ncomputational-governance-platform.assistant.index.max-chunks = 10`,
        inject('databaseUrl'),
      ),
    );
    const logs = captureLogs('error');
    try {
      const ranked = await closestVectors(small, 'embedder-capped', vectorOf(3000), 50);
      expect(ranked.map((match) => match.key).sort()).toEqual(
        capped
          .map((one) => one.key)
          .sort()
          .slice(0, 10),
      );
      // Questions go on being answered from those; the error is said once, not at every question.
      expect(await closestVectors(small, 'embedder-capped', vectorOf(3001), 50)).toHaveLength(10);
      const said = logs.lines.filter((line) => line.setting === 'assistant.index.max-chunks');
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({ maxChunks: 10, embedderModel: 'embedder-capped' });
      expect(said[0].msg).toContain('more than 10 chunks of embedder-capped (assistant.index.max-chunks)');
      // The pool of the default setting ranks them all.
      expect(await closestVectors(world.database(), 'embedder-capped', vectorOf(3000), 50)).toHaveLength(30);
    } finally {
      logs.stop();
      await small.close();
    }
  });
});

describe.skipIf(!pgvectorBinaries())(`pgvector (a PostgreSQL of this machine that has it; skipped when there is ${PGVECTOR_MISSING})`, () => {
  const world = vectorStoreSuite(async () => {
    const server = await startPgvectorPostgres();
    if (!server) throw new Error(PGVECTOR_MISSING);
    return server;
  });

  it('is created at start-up, and the index gets its vector column', async () => {
    expect(world.store()).toBe('pgvector');
    const [column] = await world.database().sql`
      select format_type(atttypid, atttypmod) as type, attgenerated as generated from pg_attribute
      where attrelid = ${`"${SCHEMA}".knowledge_chunks`}::regclass and attname = 'embedding_vector'`;
    expect(column).toEqual({ type: 'vector', generated: 's' });
  });

  describe('retrieval', () => retrievalTests(world));
});
