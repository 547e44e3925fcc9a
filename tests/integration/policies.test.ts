import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';
import { dispatchOutbox, platformDelivery } from '#lib/outbox/outbox-dispatcher';
import type { Notification } from '#lib/platform/notifications';

import type * as metricsModule from '../../functions/governance/metrics';
import type * as policiesModule from '../../functions/governance/policies';
import type * as resourceTypesModule from '../../functions/governance/resource-types';
import { FakeServer } from '../fakes/fake-server';
import { testDatabase, testSettings } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

const SCHEMA = 'it_policies';
const notifications = new FakeServer<Notification>(() => ({ status: 200, body: {} }));
let database: Database;
let policies: typeof policiesModule;
let metrics: typeof metricsModule;
let resourceTypes: typeof resourceTypesModule;
let overrides = '';

const BASE = '/v1/computational-governance/policies';
const as = async (subject: string) => ({ authorization: `Bearer ${await technicalToken({ sub: subject })}` });

const remotePolicy = (changes: Record<string, unknown> = {}) => ({
  name: 'Owner is set',
  description: 'Every data product names its owner',
  resourceType: 'dataproduct',
  environment: 'development',
  severity: 'error',
  engine: 'remote',
  remoteEngineUrl: 'http://127.0.0.1:9/engine',
  ...changes,
});

const create = async (body: unknown, subject = 'alice') => invoke(policies.createPolicy, { method: 'POST', path: BASE, body, headers: await as(subject) });
const read = (id: string, version?: number) =>
  invoke(policies.getPolicy, { method: 'GET', path: `${BASE}/${id}`, params: { id }, query: version ? { version: String(version) } : undefined });
const move = (id: string, status: string, version?: number) =>
  invoke(policies.changeStatusOfPolicy, { method: 'POST', path: `${BASE}/${id}/status`, params: { id }, body: { status, ...(version ? { version } : {}) } });
const publish = (id: string) => invoke(policies.publishPolicy, { method: 'POST', path: `${BASE}/${id}/publish`, params: { id } });
const update = async (id: string, body: unknown, subject = 'bob') =>
  invoke(policies.updatePolicy, { method: 'PUT', path: `${BASE}/${id}`, params: { id }, body, headers: await as(subject) });
const remove = (id: string) => invoke(policies.deletePolicy, { method: 'DELETE', path: `${BASE}/${id}`, params: { id } });
const list = (query: Record<string, string> = {}) => invoke(policies.listPolicy, { method: 'GET', path: BASE, query });

beforeAll(async () => {
  await notifications.start();
  overrides = `computational-governance-platform {
    notification { enabled = true, url = "${notifications.url}/api/notifications", secret = "notification-secret-1" }
    resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]
  }`;
  await useHandlersOn(SCHEMA, overrides);
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  metrics = await import('../../functions/governance/metrics');
  resourceTypes = await import('../../functions/governance/resource-types');
});

beforeEach(async () => {
  await backgroundDispatchSettled();
  notifications.reset();
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await notifications.stop();
});

describe('creating policies', () => {
  it('stores a draft, version 1, with every field, the defaults and who wrote it', async () => {
    const response = await create(remotePolicy({ tags: ['ownership'], interactionType: 'human' }));
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      name: 'Owner is set',
      description: 'Every data product names its owner',
      resourceType: 'dataproduct',
      environment: 'development',
      severity: 'error',
      interactionType: 'human',
      tags: ['ownership'],
      engine: 'remote',
      cueScript: null,
      requireConcrete: true,
      remoteEngineUrl: 'http://127.0.0.1:9/engine',
      llmRule: null,
      governanceAgentSpec: null,
      trigger: 'active',
      timing: 'deployment',
      cronExpression: null,
      strategy: 'default',
      status: 'draft',
      evaluator: null,
      evaluatorReason: null,
      createdAt: expect.any(String),
      createdBy: 'alice',
      updatedAt: expect.any(String),
      updatedBy: 'alice',
    });
    expect((await read(response.body.id)).body).toEqual(response.body);
  });

  it.each([
    ['http://engine-user:engine-secret@127.0.0.1:9/engine', 'must not carry credentials'],
    ['http://127.0.0.1:9/engine?token=engine-secret', 'must not carry a query or a fragment'],
    ['http://127.0.0.1:9/engine#engine-secret', 'must not carry a query or a fragment'],
  ])('refuses a remoteEngineUrl with credentials or a query (%s), naming the field and echoing nothing', async (remoteEngineUrl, message) => {
    const response = await create(remotePolicy({ remoteEngineUrl }));
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'remoteEngineUrl', message: expect.stringContaining(message) }]);
    expect(JSON.stringify(response.body)).not.toContain('engine-secret');
  });

  it('refuses bad fields, each named: unknown type and environment, bad URL, bad cron, missing script', async () => {
    const response = await create(remotePolicy({ resourceType: 'nope', environment: 'mars', remoteEngineUrl: 'ftp://x' }));
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['remoteEngineUrl']);

    const references = await create(remotePolicy({ resourceType: 'nope', environment: 'mars' }));
    expect(references.status).toBe(400);
    expect(references.body.errors).toEqual([
      { path: 'resourceType', message: 'no resource type is named "nope"' },
      { path: 'environment', message: expect.stringContaining('unknown environment "mars"') },
    ]);

    const cron = await create(remotePolicy({ timing: 'runtime', cronExpression: '61 * * * *' }));
    expect(cron.status).toBe(400);
    expect(cron.body.errors).toEqual([{ path: 'cronExpression', message: expect.stringMatching(/^not a valid cron expression: .*minute/) }]);

    const cue = await create(remotePolicy({ engine: 'cue', remoteEngineUrl: undefined }));
    expect(cue.body.errors).toEqual([{ path: 'cueScript', message: 'cueScript is required when engine is cue' }]);

    const active = await create(remotePolicy({ engine: undefined, remoteEngineUrl: undefined }));
    expect(active.body.errors).toEqual([{ path: 'engine', message: expect.stringContaining('engine is required') }]);

    expect((await create(remotePolicy({ timing: 'runtime' }))).body.errors[0].path).toBe('cronExpression');
    expect((await create(remotePolicy({ cronExpression: '0 * * * *' }))).body.errors[0].message).toMatch(/only for timing runtime/);
    expect((await create(remotePolicy({ timing: 'runtime', cronExpression: '0 0/15 * * * ?' }))).status).toBe(201);
  });

  it("a CUE script that does not compile is a 400 carrying CUE's message and line", async () => {
    const response = await create(remotePolicy({ engine: 'cue', remoteEngineUrl: undefined, cueScript: 'owner: string\nname: "unclosed\nother: 1\n' }));
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: 'cueScript', message: expect.stringMatching(/^CUE does not compile \(line 2[,)].*/), line: 2, column: expect.any(Number) },
    ]);
    const good = await create(remotePolicy({ engine: 'cue', remoteEngineUrl: undefined, cueScript: 'owner: string\n' }));
    expect(good.status).toBe(201);
  });
});

describe('the evaluator of a CUE policy, chosen when it is saved', () => {
  const cuePolicy = (cueScript: string) => remotePolicy({ engine: 'cue', remoteEngineUrl: undefined, cueScript });

  it('is native for what the native evaluator compiles, required fields included', async () => {
    const response = await create(cuePolicy('name!: string\nowner: email: =~"@"\n'));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ evaluator: 'native', evaluatorReason: null });
    expect((await read(response.body.id)).body).toMatchObject({ evaluator: 'native', evaluatorReason: null });
  });

  it('is wasm, with the reason, for a script using what the native evaluator lacks; an edit decides again', async () => {
    const response = await create(cuePolicy('import "crypto/sha256"\n\nname: string\nsum: sha256.Sum256("abc")\n'));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ evaluator: 'wasm', evaluatorReason: 'the package "crypto/sha256" is not in the native evaluator' });
    const edited = await update(response.body.id, cuePolicy('name: string\n'));
    expect(edited.body).toMatchObject({ version: 1, evaluator: 'native', evaluatorReason: null });
  });

  it('is shown on metrics too, and is null for remote entities', async () => {
    const metric = await invoke(metrics.createMetric, {
      method: 'POST',
      path: '/v1/computational-governance/metrics',
      body: cuePolicy('components: [...]\nvalue: len(components)\n'),
    });
    expect(metric.body).toMatchObject({ evaluator: 'native', evaluatorReason: null });
    expect((await create(remotePolicy())).body).toMatchObject({ evaluator: null, evaluatorReason: null });
  });
});

describe('lifecycle', () => {
  it('walks the legal moves and answers 409 for the others, naming the allowed ones', async () => {
    const { body: policy } = await create(remotePolicy());
    expect((await move(policy.id, 'disabled')).status).toBe(409);
    const illegal = await move(policy.id, 'disabled');
    expect(illegal.body).toMatchObject({ status: 409, currentStatus: 'draft', allowedStatuses: ['grace', 'enabled'] });
    expect((await move(policy.id, 'grace')).body.status).toBe('grace');
    expect((await move(policy.id, 'draft')).status).toBe(409);
    expect((await move(policy.id, 'enabled')).body.status).toBe('enabled');
    expect((await move(policy.id, 'grace')).body.status).toBe('grace');
    expect((await move(policy.id, 'enabled')).body.status).toBe('enabled');
    expect((await move(policy.id, 'disabled')).body.status).toBe('disabled');
    expect((await move(policy.id, 'grace')).status).toBe(409);
    expect((await move(policy.id, 'enabled')).body.status).toBe('enabled');
    expect((await move(policy.id, 'not-a-status')).status).toBe(400);
  });

  it('publish enables from any status', async () => {
    for (const path of [[], ['grace'], ['enabled', 'disabled']]) {
      const { body: policy } = await create(remotePolicy());
      for (const status of path) await move(policy.id, status);
      const published = await publish(policy.id);
      expect(published.status).toBe(200);
      expect(published.body.status).toBe('enabled');
    }
  });

  it('a draft is edited in place; editing any other status writes the next version, a draft', async () => {
    const { body: policy } = await create(remotePolicy());
    const edited = await update(policy.id, remotePolicy({ description: 'edited draft' }));
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ version: 1, description: 'edited draft', status: 'draft', createdBy: 'alice', updatedBy: 'bob' });

    await publish(policy.id);
    const next = await update(policy.id, remotePolicy({ description: 'second version' }), 'carol');
    expect(next.status).toBe(201);
    expect(next.body).toMatchObject({ id: policy.id, version: 2, status: 'draft', description: 'second version', createdBy: 'carol' });
    const first = await read(policy.id, 1);
    expect(first.body).toMatchObject({ version: 1, status: 'enabled', description: 'edited draft' });
    expect((await read(policy.id)).body.version).toBe(2);

    const versions = await invoke(policies.listVersionsOfPolicy, { method: 'GET', path: `${BASE}/${policy.id}/versions`, params: { id: policy.id } });
    expect(versions.body.data.map((v: { version: number; status: string }) => `${v.version}:${v.status}`)).toEqual(['1:enabled', '2:draft']);

    // Publishing version 2 retires version 1: one version of an entity is evaluated at a time.
    await publish(policy.id);
    expect((await read(policy.id, 1)).body.status).toBe('disabled');
    expect((await read(policy.id, 2)).body.status).toBe('enabled');
  });

  it('deletes only drafts and disabled entities', async () => {
    const { body: policy } = await create(remotePolicy());
    await publish(policy.id);
    expect((await remove(policy.id)).status).toBe(409);
    await move(policy.id, 'disabled');
    expect((await remove(policy.id)).status).toBe(204);
    expect((await read(policy.id)).status).toBe(404);
    expect((await remove(policy.id)).status).toBe(404);
    const { body: draft } = await create(remotePolicy());
    expect((await remove(draft.id)).status).toBe(204);
  });

  it('404 for an unknown id, 400 for one that is not a UUID', async () => {
    expect((await read('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await read('not-a-uuid')).status).toBe(400);
  });

  it('400 for a version past the range of its column, in the query and in a status move', async () => {
    const { body: created } = await create(remotePolicy());
    const tooLarge = await read(created.id, 2_147_483_648);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors).toEqual([{ path: 'query.version', message: 'version must be at most 2147483647' }]);
    expect((await read(created.id, 2_147_483_647)).status).toBe(404);
    const moved = await move(created.id, 'enabled', 2_147_483_648);
    expect(moved.status).toBe(400);
    expect(moved.body.errors).toEqual([{ path: 'version', message: 'version must be at most 2147483647' }]);
  });
});

describe('listing', () => {
  it('filters by status, type, environment, trigger and text, and pages', async () => {
    const { body: a } = await create(remotePolicy({ name: 'zz filter alpha', environment: 'qa' }));
    await create(remotePolicy({ name: 'zz filter beta', environment: 'production', trigger: 'passive', engine: undefined, remoteEngineUrl: undefined }));
    await publish(a.id);
    const names = async (query: Record<string, string>) => (await list({ text: 'zz filter', ...query })).body.data.map((p: { name: string }) => p.name);
    expect(await names({})).toEqual(['zz filter alpha', 'zz filter beta']);
    expect(await names({ status: 'enabled,grace' })).toEqual(['zz filter alpha']);
    expect(await names({ environment: 'production' })).toEqual(['zz filter beta']);
    expect(await names({ trigger: 'passive' })).toEqual(['zz filter beta']);
    expect(await names({ resourceType: 'other' })).toEqual([]);
    const page = await list({ text: 'zz filter', limit: '1', offset: '1' });
    expect(page.body.meta.pagination).toEqual({ limit: 1, offset: 1, total: 2 });
    expect(page.body.data.map((p: { name: string }) => p.name)).toEqual(['zz filter beta']);
    expect((await list({ status: 'open' })).status).toBe(400);
  });
});

describe('the order of names', () => {
  // As people write names: capitalised or not, words or paths; two that differ only in case, two equal.
  const NAMES = ['Console policy', 'actual_policies/x', 'cli owner', 'beta', 'Beta', 'Same name', 'Same name'];

  it.each(['policies', 'metrics'] as const)(
    'on /%s is case-insensitive, ties by the name as written then by id: by default, by sort-by=name, descending, under another sort-by and across pages',
    async (kind) => {
      const path = `/v1/computational-governance/${kind}`;
      const handlers =
        kind === 'policies' ? { create: policies.createPolicy, list: policies.listPolicy } : { create: metrics.createMetric, list: metrics.listMetric };
      const created: { id: string; name: string }[] = [];
      for (const name of NAMES) {
        const response = await invoke(handlers.create, { method: 'POST', path, body: remotePolicy({ name }) });
        expect(response.status).toBe(201);
        created.push(response.body);
      }
      // The two equal names are told apart by id, which the database compares as the UUIDs' text would.
      const [lowerId, higherId] = created
        .filter((entity) => entity.name === 'Same name')
        .map((entity) => entity.id)
        .sort();
      const labels = new Map(created.map((entity) => [entity.id, entity.name]));
      labels.set(lowerId, 'Same name, lower id').set(higherId, 'Same name, higher id');
      // Names equal but for case come in the order of the database's collation: capitals first under C, last under en_US.
      const [{ upperFirst }] = await database.sql<{ upperFirst: boolean }[]>`select 'Beta' < 'beta' as "upperFirst"`;
      const betas = upperFirst ? ['Beta', 'beta'] : ['beta', 'Beta'];
      const order = async (query: Record<string, string> = {}) => {
        const response = await invoke(handlers.list, { method: 'GET', path, query: { 'id-in': created.map((entity) => entity.id).join(','), ...query } });
        expect(response.status).toBe(200);
        return response.body.data.map((entity: { id: string }) => labels.get(entity.id));
      };

      const ascending = ['actual_policies/x', ...betas, 'cli owner', 'Console policy', 'Same name, lower id', 'Same name, higher id'];
      expect(await order()).toEqual(ascending);
      expect(await order({ 'sort-by': 'name' })).toEqual(ascending);
      expect(await order({ 'sort-by': 'name', 'sort-order': 'asc' })).toEqual(ascending);
      // The direction is the name's; its ties (as written, then id) stay ascending.
      expect(await order({ 'sort-by': 'name', 'sort-order': 'desc' })).toEqual([
        'Same name, lower id',
        'Same name, higher id',
        'Console policy',
        'cli owner',
        ...betas,
        'actual_policies/x',
      ]);
      // All of one severity: the name orders them, case-insensitively too.
      expect(await order({ 'sort-by': 'severity', 'sort-order': 'desc' })).toEqual(ascending);
      // Pages of 2 split both ties (the betas, the equal names) and neither overlap nor miss one.
      const pages = [];
      for (const offset of [0, 2, 4, 6]) pages.push(...(await order({ limit: '2', offset: String(offset) })));
      expect(pages).toEqual(ascending);
    },
  );
});

describe('metrics', () => {
  it('have thresholds and their own endpoints', async () => {
    const body = {
      ...remotePolicy({ name: 'Test coverage' }),
      thresholds: [
        { label: 'low', color: 'red', max: 50 },
        { label: 'ok', color: 'green', min: 50 },
      ],
    };
    const response = await invoke(metrics.createMetric, { method: 'POST', path: '/v1/computational-governance/metrics', body });
    expect(response.status).toBe(201);
    expect(response.body.thresholds).toEqual(body.thresholds);
    const bad = await invoke(metrics.createMetric, {
      method: 'POST',
      path: '/v1/computational-governance/metrics',
      body: { ...body, thresholds: [{ label: 'x', color: 'red', min: 5, max: 1 }] },
    });
    expect(bad.body.errors).toEqual([{ path: 'thresholds.0.min', message: 'min must not be above max' }]);
    // A policy id is not a metric.
    const { body: policy } = await create(remotePolicy());
    expect(
      (await invoke(metrics.getMetric, { method: 'GET', path: `/v1/computational-governance/metrics/${policy.id}`, params: { id: policy.id } })).status,
    ).toBe(404);
  });
});

describe('notifications', () => {
  const sent = () => notifications.requests.filter((request) => request.path === '/api/notifications');

  it('a created policy or metric sends its event with the notification secret; a failed creation sends the failure event', async () => {
    const { body: policy } = await create(remotePolicy({ name: 'Notified policy' }));
    await invoke(metrics.createMetric, { method: 'POST', path: '/v1/computational-governance/metrics', body: remotePolicy({ name: 'Notified metric' }) });
    await create(remotePolicy({ name: 'Broken policy', resourceType: 'nope' }));
    await backgroundDispatchSettled();
    // Each call's message is delivered in the background after it: calls in a row may arrive in any order.
    expect(sent().map((request) => request.body.event)).toEqual(expect.arrayContaining(['new-policy', 'new-metric', 'scheduled-policy-failure']));
    expect(sent()).toHaveLength(3);
    const byEvent = (event: string) => sent().filter((request) => request.body.event === event)[0];
    expect(byEvent('new-policy').headers.authorization).toBe('Bearer notification-secret-1');
    expect(byEvent('new-policy').body).toEqual({
      event: 'new-policy',
      entity: { id: policy.id, name: 'Notified policy', type: 'policy' },
      message: 'alice created the policy "Notified policy"',
      timestamp: expect.any(String),
      // The same in the header: a receiver that got this message before can tell.
      idempotencyKey: byEvent('new-policy').headers['idempotency-key'],
    });
    expect(byEvent('scheduled-policy-failure').body.entity).toEqual({ id: null, name: 'Broken policy', type: 'policy' });
    expect(byEvent('scheduled-policy-failure').body.message).toContain('resourceType: no resource type is named "nope"');
  });

  it('text the database cannot store is a 400 naming the field, and the failure notification still goes out', async () => {
    const refused = await create(remotePolicy({ name: 'Bad \ud800 name', tags: ['ok', 'nul\u0000'] }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'name', message: 'must not hold an unpaired UTF-16 surrogate (not valid Unicode)' }]);
    const inTags = await create(remotePolicy({ tags: ['ok', 'nul\u0000'] }));
    expect(inTags.body.errors).toEqual([{ path: 'tags.1', message: 'must not hold a NUL character (U+0000)' }]);
    await backgroundDispatchSettled();
    expect(
      sent()
        .map((request) => `${request.body.event}: ${request.body.entity.name}`)
        .sort(),
    ).toEqual(['scheduled-policy-failure: Bad \ufffd name', 'scheduled-policy-failure: Owner is set']);
  });

  it('a notification service that is down fails nothing, and the message is retried until delivered', async () => {
    notifications.answer({ status: 503 }, { status: 503 });
    const response = await create(remotePolicy({ name: 'Retried' }));
    expect(response.status).toBe(201);
    await backgroundDispatchSettled();
    expect(sent()).toHaveLength(1);
    const pending = async () =>
      (await database.sql.unsafe(`select count(*)::int as count from ${SCHEMA}.outbox where topic = 'notification' and delivered_at is null`))[0].count;
    expect(await pending()).toBe(1);
    await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where delivered_at is null`);
    const settings = await testSettings(SCHEMA, overrides);
    expect(await dispatchOutbox(database, platformDelivery(settings))).toEqual({ delivered: 0, failed: 1 });
    await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where delivered_at is null`);
    expect(await dispatchOutbox(database, platformDelivery(settings))).toEqual({ delivered: 1, failed: 0 });
    expect(await pending()).toBe(0);
    expect(sent().map((request) => request.body.entity.name)).toEqual(['Retried', 'Retried', 'Retried']);
  });
});

describe('resource types in use', () => {
  it('cannot be deleted while a policy or metric is written for them', async () => {
    const register = (name: string) =>
      invoke(resourceTypes.registerResourceType, {
        method: 'POST',
        path: '/v1/computational-governance/resource-types',
        body: { name, resolverConfiguration: { url: 'http://127.0.0.1:9', path: '/r' } },
      });
    const removeType = (name: string) =>
      invoke(resourceTypes.deleteResourceType, { method: 'DELETE', path: `/v1/computational-governance/resource-types/${name}`, params: { name } });
    await register('pipeline');
    const { body: policy } = await create(remotePolicy({ resourceType: 'pipeline', name: 'Pipeline policy' }));
    const refused = await removeType('pipeline');
    expect(refused.status).toBe(409);
    expect(refused.body.usedBy).toEqual(['Pipeline policy']);
    await remove(policy.id);
    expect((await removeType('pipeline')).status).toBe(204);
  });
});
