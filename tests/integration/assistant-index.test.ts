import { randomBytes } from 'node:crypto';

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { refreshKnowledgeIndex } from '#lib/assistant/knowledge/knowledge-index-refresh';
import type { Database } from '#lib/db/client';
import type { ModelConfigInput } from '#lib/llm/model-config';
import { toConnection } from '#lib/llm/model-config-repository';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';
import { callerTargetTimeoutsOf } from '#lib/platform/http-client';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import type * as embedderConfigModule from '../../functions/assistant/embedder-config';
import type * as indexModule from '../../functions/assistant/knowledge-index';
import type * as llmConfigModule from '../../functions/assistant/llm-config';
import type * as policiesModule from '../../functions/governance/policies';
import type * as resourceTypesModule from '../../functions/governance/resource-types';
import type * as refresherModule from '../../functions/schedules/knowledge-index-refresher';
import { fakeEmbedding, FakeHostedModel } from '../fakes/hosted-model';
import { testDatabase, testSettings } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { captureLogs, type LogLine } from '../support/log-capture';

const SCHEMA = 'it_assistant_index';
const API_KEY = 'sk-index-0123456789abcdef';
const BATCH_SIZE = 4;
const MAX_CHUNKS = 100;
const OVERRIDES = `computational-governance-platform {
  assistant { encryption-key = "${randomBytes(32).toString('base64')}", provider-retries = 0, index { batch-size = ${BATCH_SIZE}, max-chunks = ${MAX_CHUNKS} } }
  resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]
}`;
const POLICIES = '/v1/computational-governance/policies';

const fake = new FakeHostedModel();
let database: Database;
let handlers: {
  llm: typeof llmConfigModule;
  embedder: typeof embedderConfigModule;
  index: typeof indexModule;
  policies: typeof policiesModule;
  resourceTypes: typeof resourceTypesModule;
  refresher: typeof refresherModule;
};

const saveBoth = async (embedderModel = 'text-embedding-3-small') => {
  expect(
    (await invoke(handlers.llm.saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body: fake.configuration('gpt-4o', API_KEY) })).status,
  ).toBeLessThan(300);
  expect(
    (
      await invoke(handlers.embedder.saveEmbedderConfig, {
        method: 'POST',
        path: '/assistant/v1/embedder/config',
        body: fake.configuration(embedderModel, API_KEY),
      })
    ).status,
  ).toBeLessThan(300);
};
const refresh = () => invoke(handlers.index.refreshKnowledgeIndex, { method: 'POST', path: '/assistant/v1/index/refresh' });
const readIndex = () => invoke(handlers.index.readKnowledgeIndex, { method: 'GET', path: '/assistant/v1/index' });
const createPolicy = async (name: string, description: string) => {
  const response = await invoke(handlers.policies.createPolicy, {
    method: 'POST',
    path: POLICIES,
    body: {
      name,
      description,
      resourceType: 'dataproduct',
      environment: null,
      severity: 'error',
      engine: 'cue',
      cueScript: 'owner!: string',
      tags: ['ownership'],
    },
  });
  expect(response.status).toBe(201);
  return response.body as { id: string; version: number };
};
const chunkKeys = async (sourceId: string) =>
  (await database.sql.unsafe<{ key: string }[]>(`select key from ${SCHEMA}.knowledge_chunks where source_id = $1 order by key`, [sourceId])).map(
    (row) => row.key,
  );
/** Every text embedded since the fake was reset. */
const embeddedTexts = () => fake.embeddingCalls().flat();

/** `count` enabled policies written straight into the table, each with `results` recorded results; their ids. */
async function seedPolicies(count: number, results: number): Promise<string[]> {
  const rows = await database.sql.unsafe<{ id: string }[]>(
    `insert into ${SCHEMA}.governance_entities (id, version, kind, latest, name, description, resource_type, severity, engine, cue_script, trigger, timing, strategy, status, created_by, updated_by)
     select gen_random_uuid(), 1, 'policy', true, 'Seeded policy ' || n, 'Seeded policy number ' || n, 'dataproduct', 'error', 'cue', 'owner!: string', 'active', 'deployment', 'default', 'enabled', 'test', 'test'
     from generate_series(1, $1::int) as n returning id`,
    [count],
  );
  for (const { id } of rows) await seedResults(id, results);
  return rows.map((row) => row.id);
}

/** `count` recorded results of a policy, every other one failing. */
const seedResults = (policyId: string, count: number) =>
  database.sql.unsafe(
    `insert into ${SCHEMA}.evaluation_results (recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome, resource_id, environment, resource_type, result)
     select true, $1, 1, 'policy', 'enabled', 'error', case when r % 2 = 0 then 'ok' else 'error' end, 'dp-' || r, 'development', 'dataproduct',
       jsonb_build_object('satisfiesPolicy', r % 2 = 0, 'errors', case when r % 2 = 0 then '[]'::jsonb else '["owner is missing"]'::jsonb end)
     from generate_series(1, $2::int) as r`,
    [policyId, count],
  );

const READ_TABLES = ['governance_entities', 'evaluation_results'];

/**
 * Runs `work` in one transaction of its own and answers, with its result, the rows it read of each
 * table of READ_TABLES as PostgreSQL's statistics count them (rows of sequential scans and entries
 * of index scans, this connection's only: no other connection's reads are counted). Counted as the
 * difference over `work`: the counters of a connection also hold what its earlier transactions read
 * until it reports them (when idle, at most once a second), which no transaction's own reads include.
 */
async function readsOf<T>(work: (database: Database) => Promise<T>): Promise<{ result: T; rows: Record<string, number> }> {
  return database.db.transaction(async (tx) => {
    const counts = async () => {
      const counted = await tx.execute<{ table: string; read: string }>(sql`
        select c.relname as table, pg_stat_get_xact_tuples_returned(c.oid) + coalesce(sum(pg_stat_get_xact_tuples_returned(i.indexrelid)), 0) as read
        from pg_class c left join pg_index i on i.indrelid = c.oid
        where c.relnamespace = ${SCHEMA}::regnamespace and c.relname in (${sql.join(
          READ_TABLES.map((table) => sql`${table}`),
          sql`, `,
        )})
        group by c.oid, c.relname`);
      return new Map([...counted].map((row) => [row.table, Number(row.read)]));
    };
    const before = await counts();
    const result = await work({ ...database, db: tx as unknown as Database['db'] });
    const after = await counts();
    return { result, rows: Object.fromEntries([...after].map(([table, read]) => [table, read - (before.get(table) ?? 0)])) };
  });
}

beforeAll(async () => {
  await fake.start();
  await useHandlersOn(SCHEMA, OVERRIDES);
  database = await testDatabase(SCHEMA);
  handlers = {
    llm: await import('../../functions/assistant/llm-config'),
    embedder: await import('../../functions/assistant/embedder-config'),
    index: await import('../../functions/assistant/knowledge-index'),
    policies: await import('../../functions/governance/policies'),
    resourceTypes: await import('../../functions/governance/resource-types'),
    refresher: await import('../../functions/schedules/knowledge-index-refresher'),
  };
});

beforeEach(async () => {
  await backgroundDispatchSettled();
  await database.sql.unsafe(
    `delete from ${SCHEMA}.model_configurations; delete from ${SCHEMA}.knowledge_chunks; delete from ${SCHEMA}.knowledge_index_refreshes; delete from ${SCHEMA}.knowledge_stale_sources; delete from ${SCHEMA}.outbox; delete from ${SCHEMA}.evaluation_results; delete from ${SCHEMA}.governance_entities`,
  );
  fake.reset();
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await fake.stop();
});

describe('the knowledge index', () => {
  it('answers 409 naming the missing configurations, and calls no provider', async () => {
    for (const response of [await refresh(), await readIndex()]) {
      expect(response.status).toBe(409);
      expect(response.body.missing).toEqual(['llm', 'embedder']);
    }
    await invoke(handlers.llm.saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body: fake.configuration('gpt-4o', API_KEY) });
    const response = await refresh();
    expect(response.status).toBe(409);
    expect(response.body.missing).toEqual(['embedder']);
    expect(response.body.detail).toContain('embedder configuration');
    expect(fake.requests).toEqual([]);
  });

  it('is empty before the first refresh', async () => {
    await saveBoth();
    const response = await readIndex();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      chunks: 0,
      sourceTypes: { policy: 0, metric: 0, resource_type: 0, environment: 0, guide: 0, results: 0 },
      embedderModel: null,
      refreshedAt: null,
      staleSources: 0,
    });
  });

  it('embeds every source in batches through the embedder deployment, then nothing when nothing changed', async () => {
    await saveBoth();
    const policy = await createPolicy('Owner is named', 'Every data product names its owner');
    const first = await refresh();
    expect(first.status).toBe(200);
    const calls = fake.embeddingCalls();
    expect(first.body).toEqual({ embedded: calls.flat().length, unchanged: 0, removed: 0 });
    expect(calls.every((inputs) => inputs.length <= BATCH_SIZE)).toBe(true);
    expect(calls.some((inputs) => inputs.length === BATCH_SIZE)).toBe(true);
    const request = fake.requests[0];
    expect(request.path).toBe('/openai/deployments/text-embedding-3-small-deployment/embeddings');
    expect(request.headers['api-key']).toBe(API_KEY);

    const texts = embeddedTexts();
    expect(texts.some((text) => text.startsWith('Owner is named\n') && text.includes('owner!: string') && text.includes('Tags: ownership'))).toBe(true);
    expect(texts.some((text) => text.includes('Resource type: dataproduct'))).toBe(true);
    expect(texts.some((text) => text.startsWith('Writing CUE policies: Required fields first\n'))).toBe(true);
    expect(await chunkKeys(policy.id)).toEqual([`policy:${policy.id}:1#0`]);

    const [stored] = await database.sql.unsafe<{ embedding: number[]; embedder_model: string; title: string }[]>(
      `select embedding, embedder_model, title from ${SCHEMA}.knowledge_chunks where source_id = $1`,
      [policy.id],
    );
    expect(stored.embedder_model).toBe('text-embedding-3-small');
    const expected = fakeEmbedding(texts.find((text) => text.startsWith('Owner is named\n')) ?? '');
    stored.embedding.forEach((value, index) => expect(value).toBeCloseTo(expected[index], 5));

    const state = await readIndex();
    expect(state.body.chunks).toBe(first.body.embedded);
    expect(state.body.sourceTypes).toMatchObject({ policy: 1, resource_type: 1 });
    expect(state.body.sourceTypes.guide).toBeGreaterThan(5);
    expect(state.body.embedderModel).toBe('text-embedding-3-small');
    expect(Date.parse(state.body.refreshedAt)).not.toBeNaN();

    fake.reset();
    const second = await refresh();
    expect(second.body).toEqual({ embedded: 0, unchanged: first.body.embedded, removed: 0 });
    expect(fake.embeddingCalls()).toEqual([]);
  });

  it('embeds again only the chunks of a changed policy, and removes those of a deleted one', async () => {
    await saveBoth();
    const kept = await createPolicy('Owner is named', 'Every data product names its owner');
    const changed = await createPolicy('Encryption at rest', 'Storage must be encrypted');
    const total = (await refresh()).body.embedded;
    fake.reset();

    const update = await invoke(handlers.policies.updatePolicy, {
      method: 'PUT',
      path: `${POLICIES}/${changed.id}`,
      params: { id: changed.id },
      body: {
        name: 'Encryption at rest',
        description: 'Storage must be encrypted with a managed key',
        resourceType: 'dataproduct',
        environment: null,
        severity: 'error',
        engine: 'cue',
        cueScript: 'owner!: string',
      },
    });
    expect(update.status).toBe(200);
    const afterChange = await refresh();
    expect(afterChange.body).toEqual({ embedded: 1, unchanged: total - 1, removed: 0 });
    expect(embeddedTexts()).toEqual([expect.stringContaining('Description: Storage must be encrypted with a managed key')]);

    fake.reset();
    const removal = await invoke(handlers.policies.deletePolicy, { method: 'DELETE', path: `${POLICIES}/${changed.id}`, params: { id: changed.id } });
    expect(removal.status).toBe(204);
    const afterDelete = await refresh();
    expect(afterDelete.body).toEqual({ embedded: 0, unchanged: total - 1, removed: 1 });
    expect(await chunkKeys(changed.id)).toEqual([]);
    expect(await chunkKeys(kept.id)).toEqual([`policy:${kept.id}:1#0`]);
  });

  it('summarises the latest results of a policy, its most frequent errors first', async () => {
    await saveBoth();
    const policy = await createPolicy('Owner is named', 'Every data product names its owner');
    const result = (resourceId: string, outcome: string, errors: string[]) =>
      database.sql.unsafe(
        `insert into ${SCHEMA}.evaluation_results (recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome, resource_id, environment, resource_type, result)
         values (true, $1, 1, 'policy', 'enabled', 'error', $2, $3, 'development', 'dataproduct', $4::jsonb)`,
        [policy.id, outcome, resourceId, JSON.stringify({ satisfiesPolicy: outcome === 'ok', errors })],
      );
    // Replaced by a later result of the same resource: no longer counts.
    await result('dp-3', 'error', ['stale error']);
    await result('dp-1', 'error', ['owner: field is required but not present']);
    await result('dp-2', 'error', ['owner: field is required but not present', 'name: too short']);
    await result('dp-3', 'ok', []);

    await refresh();
    const [summary] = await database.sql.unsafe<{ title: string; content: string; key: string }[]>(
      `select title, content, key from ${SCHEMA}.knowledge_chunks where source_type = 'results'`,
    );
    expect(summary.key).toBe(`results:${policy.id}#0`);
    expect(summary.title).toBe('Latest results of Owner is named');
    expect(summary.content).toBe(
      `Latest results of the policy Owner is named (${policy.id}): 1 resources pass, 2 fail.\n- 2 x owner: field is required but not present\n- 1 x name: too short`,
    );
  });

  it('embeds everything again when the embedder model changes, and never mixes the models', async () => {
    await saveBoth();
    await createPolicy('Owner is named', 'Every data product names its owner');
    const total = (await refresh()).body.embedded;
    await saveBoth('text-embedding-3-large');
    fake.reset();
    const response = await refresh();
    expect(response.body).toEqual({ embedded: total, unchanged: 0, removed: 0 });
    expect(fake.requests.every((request) => request.path === '/openai/deployments/text-embedding-3-large-deployment/embeddings')).toBe(true);
    const models = await database.sql.unsafe<{ embedder_model: string }[]>(`select distinct embedder_model from ${SCHEMA}.knowledge_chunks`);
    expect(models).toEqual([{ embedder_model: 'text-embedding-3-large' }]);
    expect((await readIndex()).body.embedderModel).toBe('text-embedding-3-large');
  });

  it('answers 502 when the embedder fails, and keeps no secret in bodies or logs', async () => {
    await saveBoth();
    const { logger } = await import('#lib/logging/logger');
    const spies = (['info', 'warn', 'error', 'debug'] as const).map((level) => vi.spyOn(logger, level));
    fake.answer({ status: 401, body: { error: { code: '401', message: `Key ${API_KEY} is not valid` } } });
    const failed = await refresh();
    expect(failed.status).toBe(502);
    expect(failed.body.upstreamStatus).toBe(401);
    expect(JSON.stringify(failed.body)).not.toContain(API_KEY);
    const succeeded = await refresh();
    expect(succeeded.status).toBe(200);
    const logged = JSON.stringify(spies.flatMap((spy) => spy.mock.calls));
    spies.forEach((spy) => spy.mockRestore());
    expect(logged).toContain('knowledge index refreshed');
    expect(logged).not.toContain(API_KEY);
    expect(JSON.stringify(fake.requests.map((request) => request.body))).not.toContain(API_KEY);
  });
});

describe('keeping the index fresh', () => {
  const update = (id: string, description: string) =>
    invoke(handlers.policies.updatePolicy, {
      method: 'PUT',
      path: `${POLICIES}/${id}`,
      params: { id },
      body: {
        name: 'Owner is named',
        description,
        resourceType: 'dataproduct',
        environment: null,
        severity: 'error',
        engine: 'cue',
        cueScript: 'owner!: string',
      },
    });
  const staleSources = async () => (await readIndex()).body.staleSources;

  it('builds the index on its first run, then does nothing while nothing changed', async () => {
    expect(await handlers.refresher.handler()).toEqual({ skipped: expect.stringContaining('missing: LLM configuration and embedder configuration') });
    await saveBoth();
    const built = await handlers.refresher.handler();
    expect(built).toMatchObject({ read: 'all', unchanged: 0, removed: 0 });
    expect((built as { embedded: number }).embedded).toBeGreaterThan(10);
    fake.reset();
    expect(await handlers.refresher.handler()).toEqual({ skipped: 'up to date' });
    expect(fake.requests).toEqual([]);
  });

  it('a changed policy is marked stale through the outbox, and the next run embeds only its chunk', async () => {
    await saveBoth();
    const policy = await createPolicy('Owner is named', 'Every data product names its owner');
    await backgroundDispatchSettled();
    const total = (await refresh()).body.embedded;
    expect(await staleSources()).toBe(0);

    expect((await update(policy.id, 'Every data product names its accountable owner')).status).toBe(200);
    await backgroundDispatchSettled();
    expect(await staleSources()).toBe(1);
    fake.reset();
    // It reads that policy's version (and its results, none): the other chunks are not looked at.
    expect(await handlers.refresher.handler()).toEqual({
      read: 'stale',
      sources: 1,
      embedded: 1,
      unchanged: 0,
      removed: 0,
      refused: { sources: 0, chunks: 0 },
    });
    expect(embeddedTexts()).toEqual([expect.stringContaining('accountable owner')]);
    expect(await staleSources()).toBe(0);
    expect(await handlers.refresher.handler()).toEqual({ skipped: 'up to date' });
    expect((await readIndex()).body.chunks).toBe(total);
  });

  it('after one changed policy among a thousand, the refresh of the stale sources reads that policy and its results only (the rows PostgreSQL read)', async () => {
    await saveBoth();
    const policy = await createPolicy('Owner is named', 'Every data product names its owner');
    await seedResults(policy.id, 4);
    await seedPolicies(1000, 4);
    // As autovacuum would: the planner knows the tables' sizes.
    await database.sql.unsafe(`analyze ${SCHEMA}.governance_entities; analyze ${SCHEMA}.evaluation_results`);
    await backgroundDispatchSettled();
    const embedder = toConnection(fake.configuration('text-embedding-3-small', API_KEY) as ModelConfigInput);
    const gateway = { timeouts: callerTargetTimeoutsOf(database.settings), retries: 0 };
    const limits = { batchSize: 64, maxChunks: 10_000 };

    const everything = await readsOf((db) => refreshKnowledgeIndex(db, embedder, gateway, limits, 'all'));
    expect(everything.result).toMatchObject({ read: 'all', unchanged: 0, removed: 0, refused: { sources: 0, chunks: 0 } });
    expect(everything.rows.governance_entities).toBeGreaterThanOrEqual(1001);
    expect(everything.rows.evaluation_results).toBeGreaterThanOrEqual(1001 * 4);

    expect((await update(policy.id, 'Every data product names its accountable owner')).status).toBe(200);
    await backgroundDispatchSettled();
    expect(await staleSources()).toBe(1);
    fake.reset();
    const changed = await readsOf((db) => refreshKnowledgeIndex(db, embedder, gateway, limits, 'stale'));
    // Its one version and its results summary: the summary is as stored, the version is embedded again.
    expect(changed.result).toEqual({ read: 'stale', sources: 2, embedded: 1, unchanged: 1, removed: 0, refused: { sources: 0, chunks: 0 } });
    expect(embeddedTexts()).toEqual([expect.stringContaining('accountable owner')]);
    // Index entries of that policy (its version, and its name for each of its results) against 2,002 rows;
    // those of its 4 results against 4,004.
    expect(changed.rows.governance_entities).toBeLessThanOrEqual(10);
    expect(changed.rows.evaluation_results).toBeLessThanOrEqual(4);
    expect(await staleSources()).toBe(0);
  });

  it('marks a resource type and a deleted policy too; an embedder failure keeps the marks for the next run', async () => {
    await saveBoth();
    const policy = await createPolicy('Owner is named', 'Every data product names its owner');
    await backgroundDispatchSettled();
    await refresh();
    const type = await invoke(handlers.resourceTypes.registerResourceType, {
      method: 'POST',
      path: '/v1/computational-governance/resource-types',
      body: { name: 'dataset', displayName: 'Data set', resolverConfiguration: { url: 'http://127.0.0.1:9', path: '/datasets' } },
    });
    expect(type.status).toBe(201);
    expect((await invoke(handlers.policies.deletePolicy, { method: 'DELETE', path: `${POLICIES}/${policy.id}`, params: { id: policy.id } })).status).toBe(204);
    await backgroundDispatchSettled();
    expect(await staleSources()).toBe(2);

    fake.reset();
    fake.answer({ status: 500, body: { error: { message: 'down' } } });
    expect(await handlers.refresher.handler()).toEqual({ skipped: expect.stringContaining('500') });
    expect(await staleSources()).toBe(2);
    fake.reset();
    const run = await handlers.refresher.handler();
    expect(run).toMatchObject({ read: 'stale', sources: 1, embedded: 1, unchanged: 0, removed: 1 });
    expect(embeddedTexts()).toEqual([expect.stringContaining('Resource type: dataset')]);
    expect(await staleSources()).toBe(0);
  });

  it('a recorded result marks the results of its policy, and the next run embeds the new summary', async () => {
    await saveBoth();
    const created = await invoke(handlers.policies.createPolicy, {
      method: 'POST',
      path: POLICIES,
      body: { name: 'Checked outside', resourceType: 'dataproduct', environment: null, severity: 'error', trigger: 'passive' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await invoke(handlers.policies.publishPolicy, { method: 'POST', path: `${POLICIES}/${id}/publish`, params: { id } })).status).toBe(200);
    await backgroundDispatchSettled();
    await refresh();
    expect(await chunkKeys(id)).toEqual([`policy:${id}:1#0`]);

    const recorded = await invoke(handlers.policies.recordPassiveResult, {
      method: 'POST',
      path: `${POLICIES}/${id}/results`,
      params: { id },
      body: { environment: 'development', resource: { id: 'dp-10' }, satisfiesPolicy: false, errors: ['owner is missing'] },
    });
    expect(recorded.status).toBe(201);
    await backgroundDispatchSettled();
    expect(await staleSources()).toBe(1);
    fake.reset();
    expect(await handlers.refresher.handler()).toMatchObject({ read: 'stale', embedded: 1, removed: 0 });
    expect(embeddedTexts()).toEqual([
      `Latest results of Checked outside\nLatest results of the policy Checked outside (${id}): 0 resources pass, 1 fail.\n- 1 x owner is missing`,
    ]);
    expect(await chunkKeys(id)).toEqual([`policy:${id}:1#0`, `results:${id}#0`]);
  });

  it('a start-up marks the CUE guide and the environments (and the resource types of the settings it changed): the next run reads only those', async () => {
    await saveBoth();
    const indexed = (await refresh()).body.embedded;
    await runStartupTasks(await testSettings(SCHEMA, OVERRIDES));
    const marked = await staleSources();
    expect(marked).toBeGreaterThan(1);
    fake.reset();
    const run = await handlers.refresher.handler();
    expect(run).toMatchObject({ read: 'stale', embedded: 0, removed: 0, refused: { sources: 0, chunks: 0 } });
    // The guide's sections and the environments, as indexed: not the resource type (unchanged) nor anything else.
    const [read] = await database.sql.unsafe<{ sources: number; chunks: number }[]>(
      `select count(distinct (source_type, source_id))::int as sources, count(*)::int as chunks from ${SCHEMA}.knowledge_chunks where source_type in ('guide', 'environment')`,
    );
    expect(run).toMatchObject({ sources: read.sources, unchanged: read.chunks });
    expect(read.chunks).toBeLessThan(indexed);
    expect(fake.requests).toEqual([]);
    expect(await staleSources()).toBe(0);
  });

  it('a change whose mark cannot be written still succeeds', async () => {
    await saveBoth();
    const { OutboxRepository } = await import('#lib/outbox/outbox-repository');
    const enqueue = vi.spyOn(OutboxRepository.prototype, 'enqueue').mockRejectedValue(new Error('outbox unavailable'));
    const { logger } = await import('#lib/logging/logger');
    const warnings = vi.spyOn(logger, 'warn');
    try {
      const response = await invoke(handlers.policies.createPolicy, {
        method: 'POST',
        path: POLICIES,
        body: { name: 'Owner', resourceType: 'dataproduct', environment: null, severity: 'error', engine: 'cue', cueScript: 'owner!: string' },
      });
      expect(response.status).toBe(201);
      expect(warnings.mock.calls.map((call) => call[1])).toContain('could not mark the knowledge index stale; the next change or refresh catches up');
    } finally {
      enqueue.mockRestore();
      warnings.mockRestore();
    }
  });
});

describe('LLM policies in the index', () => {
  it('are indexed with their rule in plain words, as CUE policies with their script', async () => {
    await saveBoth();
    const created = await invoke(handlers.policies.createPolicy, {
      method: 'POST',
      path: POLICIES,
      body: { name: 'Owner is a team', resourceType: 'dataproduct', engine: 'llm', llmRule: 'The owner is a team, not a person.' },
    });
    expect(created.status).toBe(201);
    expect((await refresh()).status).toBe(200);
    const chunks = await database.sql.unsafe<{ content: string }[]>(`select content from ${SCHEMA}.knowledge_chunks where source_id = $1`, [created.body.id]);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].content).toContain('LLM rule:\nThe owner is a team, not a person.');
  });
});

describe('the bound of the index, assistant.index.max-chunks', () => {
  const staleSources = async () => (await readIndex()).body.staleSources;
  const bound = (lines: LogLine[]) => lines.filter((line) => line.setting === 'assistant.index.max-chunks');

  it('a refresh indexes what fits and refuses the rest: POST answers 409 naming the setting, the refresher logs it and keeps the marks', async () => {
    await saveBoth();
    const seeded = await seedPolicies(MAX_CHUNKS, 0);
    const logs = captureLogs('error');
    try {
      const response = await refresh();
      expect(response.status).toBe(409);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({
        status: 409,
        setting: 'assistant.index.max-chunks',
        maxChunks: MAX_CHUNKS,
        embedded: MAX_CHUNKS,
        unchanged: 0,
        removed: 0,
      });
      expect(response.body.detail).toContain(`The knowledge index holds at most ${MAX_CHUNKS} chunks (assistant.index.max-chunks)`);
      expect(response.body.refused.sources).toBeGreaterThan(0);
      // The policies came first and filled it; the resource type, the environments and the guide were left out.
      const state = (await readIndex()).body;
      expect(state.chunks).toBe(MAX_CHUNKS);
      expect(state.sourceTypes).toMatchObject({ policy: MAX_CHUNKS, guide: 0 });
      expect(bound(logs.lines)).toHaveLength(1);
      expect(bound(logs.lines)[0].msg).toContain(`holds at most ${MAX_CHUNKS} chunks (assistant.index.max-chunks)`);

      // A new policy does not fit either: the refresher embeds nothing, says so again, and keeps its mark.
      const policy = await createPolicy('Owner is named', 'Every data product names its owner');
      await backgroundDispatchSettled();
      fake.reset();
      expect(await handlers.refresher.handler()).toEqual({
        read: 'stale',
        sources: 1,
        embedded: 0,
        unchanged: 0,
        removed: 0,
        refused: { sources: 1, chunks: 1 },
      });
      expect(fake.requests).toEqual([]);
      expect(await staleSources()).toBe(1);
      expect(bound(logs.lines)).toHaveLength(2);

      // A policy gone makes room: the next run removes it and indexes the new one.
      await database.sql.unsafe(`delete from ${SCHEMA}.governance_entities where id = $1`, [seeded[0]]);
      await database.sql.unsafe(`insert into ${SCHEMA}.knowledge_stale_sources (source_type, source_id) values ('policy', $1)`, [seeded[0]]);
      expect(await handlers.refresher.handler()).toEqual({
        read: 'stale',
        sources: 1,
        embedded: 1,
        unchanged: 0,
        removed: 1,
        refused: { sources: 0, chunks: 0 },
      });
      expect(await chunkKeys(policy.id)).toEqual([`policy:${policy.id}:1#0`]);
      expect(await staleSources()).toBe(0);
      expect((await readIndex()).body.chunks).toBe(MAX_CHUNKS);
    } finally {
      logs.stop();
    }
  });
});
