import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { governance } from '#lib/governance/composition';
import { runAbandonedReports } from '#lib/governance/evaluation/evaluation-runner';
import type { EvaluationResult } from '#lib/governance/evaluation/report';

import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as metricsModule from '../../functions/governance/metrics';
import type * as policiesModule from '../../functions/governance/policies';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { present } from '../support/present';

const SCHEMA = 'it_evaluation';

/** A remote engine whose verdict is chosen by the path of its URL: /ok, /not-ok, /500, /hang, /garbage, /page, /shape, /metric, /echo. */
const engine = new FakeServer((request: RecordedRequest<{ content: string }>) => {
  const mode = request.path.split('/')[1];
  if (mode === 'ok') return { status: 200, body: { satisfiesPolicy: true, errors: [] } };
  if (mode === 'not-ok') return { status: 200, body: { satisfiesPolicy: false, errors: ['owner is missing'], details: { rule: 'owner' } } };
  if (mode === '500') return { status: 500, body: { error: 'engine crashed' } };
  if (mode === 'hang') return { hang: true };
  if (mode === 'garbage') return { status: 200, body: '<html>surprise</html>' };
  if (mode === 'metric') return { status: 200, body: { value: 72.5 } };
  if (mode === 'page') return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html>internal page: password=hunter2</html>' };
  if (mode === 'shape') return { status: 200, body: { satisfiesPolicy: 'hunter2', errors: [] } };
  if (mode === 'echo') return { status: 200, body: { satisfiesPolicy: true, errors: [], details: { seen: JSON.parse(request.body.content) } } };
  return { status: 404 };
});

/** A perimeter resolver holding the deployed resources of `resources`. */
const deployed: { id: string; displayName: string; version: string; content: string }[] = [];
const resolver = new FakeServer((request) => {
  const all = request.query.id ? deployed.filter((resource) => resource.id === request.query.id) : deployed;
  const offset = Number(request.query.offset);
  const limit = Number(request.query.limit);
  return { status: 200, body: { resources: all.slice(offset, offset + limit), page: { offset, limit, total: all.length } } };
});

let database: Database;
let policies: typeof policiesModule;
let metrics: typeof metricsModule;
let evaluation: typeof evaluationModule;

const descriptorYaml = (id: string, extra = '') => `id: ${id}\nname: Sales orders\ndomain: finance\nversion: 1.0.0\nowner: alice\n${extra}`;

async function activePolicy(changes: Record<string, unknown>, status = 'enabled', kind: 'policy' | 'metric' = 'policy') {
  const collection = kind === 'policy' ? 'policies' : 'metrics';
  const created = await invoke(kind === 'policy' ? policies.createPolicy : metrics.createMetric, {
    method: 'POST',
    path: `/v1/computational-governance/${collection}`,
    body: { name: 'p', resourceType: 'dataproduct', severity: 'error', engine: 'remote', ...changes },
  });
  expect(created.status).toBe(201);
  const { id } = created.body;
  if (status !== 'draft') {
    const moved = await invoke(kind === 'policy' ? policies.changeStatusOfPolicy : metrics.changeStatusOfMetric, {
      method: 'POST',
      path: `/v1/computational-governance/${collection}/${id}/status`,
      params: { id },
      body: { status },
    });
    expect(moved.status).toBe(200);
  }
  return created.body as { id: string; version: number };
}

const evaluate = (body: Record<string, unknown>, wait: number | null = 20) =>
  invoke(evaluation.evaluate, {
    method: 'POST',
    path: '/v1/computational-governance/evaluate',
    body: { environment: 'development', resourceType: 'dataproduct', ...body },
    headers: wait === null ? {} : { prefer: `wait=${wait}` },
  });

const readReport = (id: string) =>
  invoke(evaluation.getEvaluationReport, { method: 'GET', path: `/v1/computational-governance/evaluation-reports/${id}`, params: { id } });
const results = (query: Record<string, string>) => invoke(evaluation.listResults, { method: 'GET', path: '/v1/computational-governance/results', query });

/** Each test file evaluates against policies of its own type, so that tests do not see each other's policies. */
let typeCount = 0;
async function freshType(configured = true) {
  const name = `type-${++typeCount}`;
  const types = await import('../../functions/governance/resource-types');
  await invoke(types.registerResourceType, {
    method: 'POST',
    path: '/v1/computational-governance/resource-types',
    body: {
      name,
      ...(configured ? { configuration: { resourceName: 'id', resourceDisplayName: ['name', 'domain'], resourceFilter: 'version', batchSize: 2 } } : {}),
      resolverConfiguration: { url: resolver.url, path: '/resources' },
    },
  });
  return name;
}

beforeAll(async () => {
  await engine.start();
  await resolver.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      http { client-read-timeout = "700 ms" }
      resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "${resolver.url}", path = "/resources" } } ]
    }`,
  );
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  metrics = await import('../../functions/governance/metrics');
  evaluation = await import('../../functions/governance/evaluation');
});

beforeEach(() => {
  engine.reset();
  resolver.reset();
  deployed.length = 0;
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
  await engine.stop();
  await resolver.stop();
});

describe('the Evaluate API with remote engines', () => {
  it('says what a failing engine answered by its host and status only: never its page, path or answer', async () => {
    const type = await freshType();
    const page = await activePolicy({ resourceType: type, name: 'page', remoteEngineUrl: `${engine.url}/page` });
    const shape = await activePolicy({ resourceType: type, name: 'shape', remoteEngineUrl: `${engine.url}/shape` });
    const garbage = await activePolicy({ resourceType: type, name: 'garbage', remoteEngineUrl: `${engine.url}/garbage` });
    const response = await evaluate({ resourceType: type, descriptor: descriptorYaml('dp-1') });
    expect(response.status).toBe(200);
    const errorsOf = (id: string) => response.body.evaluationResults.find((r: EvaluationResult) => r.governanceEntityId === id).result.errors;
    const host = new URL(engine.url).host;
    expect(errorsOf(page.id)).toEqual([`The remote engine at ${host} answered 404 (Not Found)`]);
    expect(errorsOf(shape.id)).toEqual([
      `The remote engine at ${host} answered JSON that is not { "satisfiesPolicy": boolean, "errors": [string], "details"?: object } (satisfiesPolicy: expected boolean)`,
    ]);
    expect(errorsOf(garbage.id)).toEqual([`The remote engine at ${host} answered something that is not JSON`]);
    expect(JSON.stringify(response.body)).not.toMatch(/hunter2|surprise|\/page|\/shape/);
  });

  it('applies every active deployment policy of the type and environment; engine failures are failed, never ok', async () => {
    const type = await freshType();
    const ok = await activePolicy({ resourceType: type, name: 'ok', remoteEngineUrl: `${engine.url}/ok` });
    const notOk = await activePolicy({ resourceType: type, name: 'not ok', remoteEngineUrl: `${engine.url}/not-ok` });
    const crash = await activePolicy({ resourceType: type, name: 'crash', remoteEngineUrl: `${engine.url}/500` });
    const hang = await activePolicy({ resourceType: type, name: 'hang', remoteEngineUrl: `${engine.url}/hang` });
    const garbage = await activePolicy({ resourceType: type, name: 'garbage', remoteEngineUrl: `${engine.url}/garbage` });
    // Not applied: a draft, another environment, a runtime policy, a passive one.
    await activePolicy({ resourceType: type, name: 'draft', remoteEngineUrl: `${engine.url}/not-ok` }, 'draft');
    await activePolicy({ resourceType: type, name: 'qa only', environment: 'qa', remoteEngineUrl: `${engine.url}/not-ok` });
    await activePolicy({ resourceType: type, name: 'runtime', timing: 'runtime', cronExpression: '0 * * * *', remoteEngineUrl: `${engine.url}/not-ok` });
    await activePolicy({ resourceType: type, name: 'passive', trigger: 'passive', engine: undefined });

    const response = await evaluate({ resourceType: type, descriptor: descriptorYaml('dp-1'), labels: ['ci'] });
    expect(response.status).toBe(200);
    const report = response.body;
    expect(report).toMatchObject({
      status: 'completed',
      evaluationScope: 'resource',
      environment: 'development',
      labels: ['ci'],
      outcome: 'failed',
      passed: false,
      progress: { total: 5, done: 5 },
    });
    const byEntity = Object.fromEntries(report.evaluationResults.map((r: EvaluationResult) => [r.governanceEntityId, r]));
    expect(Object.keys(byEntity).sort()).toEqual([ok.id, notOk.id, crash.id, hang.id, garbage.id].sort());
    expect(byEntity[ok.id]).toMatchObject({
      outcome: 'ok',
      governanceEntityVersion: 1,
      governanceEntityType: 'policy',
      governanceEntityStatus: 'enabled',
      severity: 'error',
      result: { satisfiesPolicy: true, isError: false, errors: [] },
    });
    expect(byEntity[ok.id].resource).toEqual({
      id: 'dp-1',
      displayName: 'Sales orders finance',
      version: '1.0.0',
      environment: 'development',
      resourceType: type,
    });
    expect(byEntity[notOk.id]).toMatchObject({
      outcome: 'error',
      result: { satisfiesPolicy: false, isError: false, errors: ['owner is missing'], details: { rule: 'owner' } },
    });
    expect(byEntity[crash.id]).toMatchObject({ outcome: 'failed', result: { isError: true, errors: [expect.stringContaining('answered 500')] } });
    expect(byEntity[hang.id]).toMatchObject({ outcome: 'failed', result: { isError: true, errors: [expect.stringMatching(/timed out after 700 ms/)] } });
    expect(byEntity[garbage.id]).toMatchObject({ outcome: 'failed', result: { isError: true, errors: [expect.stringContaining('not JSON')] } });

    // The wire format of the contract.
    const call = present(
      engine.requests.find((request) => request.path === '/ok/v1/evaluate'),
      'the call to /ok/v1/evaluate',
    );
    expect(call.method).toBe('POST');
    expect(call.body).toEqual({ content: descriptorYaml('dp-1'), resourceType: type, resourceId: 'dp-1' });
  });

  it('grace failures are warnings, info severity is info, and both pass the gate', async () => {
    const type = await freshType();
    await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/not-ok` }, 'grace');
    await activePolicy({ resourceType: type, severity: 'info', remoteEngineUrl: `${engine.url}/not-ok` });
    const { body: report } = await evaluate({ resourceType: type, descriptor: { id: 'dp-2', name: 'x' } });
    expect(report.evaluationResults.map((r: EvaluationResult) => `${r.governanceEntityStatus}/${r.severity}:${r.outcome}`).sort()).toEqual([
      'enabled/info:info',
      'grace/error:warning',
    ]);
    expect(report).toMatchObject({ outcome: 'warning', passed: true });
  });

  it('a type with no active policy gives an ok report that passes', async () => {
    const { body } = await evaluate({ resourceType: await freshType(), descriptor: { id: 'x' } });
    expect(body).toMatchObject({ status: 'completed', outcome: 'ok', passed: true, evaluationResults: [] });
  });

  it('answers 202 with the report id without Prefer, and the report can be read', async () => {
    const type = await freshType();
    await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` });
    const response = await evaluate({ resourceType: type, descriptor: '{"id": "dp-3", "name": "json descriptor"}' }, null);
    expect(response.status).toBe(202);
    expect(response.headers.location).toBe(`/v1/computational-governance/evaluation-reports/${response.body.reportId}`);
    const report = await readReport(response.body.reportId);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ id: response.body.reportId, status: 'completed', outcome: 'ok', passed: true });
    expect(report.body.evaluationResults[0].resource).toMatchObject({ id: 'dp-3', displayName: 'json descriptor', version: null });
    expect((await readReport('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('with Prefer: wait=0 it answers 202 at once, and the evaluation still finishes', async () => {
    const type = await freshType();
    await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` });
    const response = await evaluate({ resourceType: type, descriptor: { id: 'dp-4' } }, 0);
    expect(response.status).toBe(202);
    await expect.poll(async () => (await readReport(response.body.reportId)).body.status).toBe('completed');
  });

  it('reads identity from the caller when the type has no descriptor configuration', async () => {
    const type = await freshType(false);
    await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` });
    const missing = await evaluate({ resourceType: type, descriptor: { name: 'no id here' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ path: 'id', message: expect.stringContaining('id is required') }]);
    const given = await evaluate({ resourceType: type, descriptor: { name: 'x' }, id: 'caller-id', displayName: 'Caller name', version: 7 });
    expect(given.body.evaluationResults[0].resource).toMatchObject({ id: 'caller-id', displayName: 'Caller name', version: '7' });
  });

  it('refuses what it cannot evaluate, naming the field', async () => {
    const type = await freshType();
    const yaml = await evaluate({ resourceType: type, descriptor: 'id: dp-1\nname: [unclosed\nother: 1\n' });
    expect(yaml.status).toBe(400);
    expect(yaml.body.errors).toEqual([{ path: 'descriptor', message: expect.stringMatching(/^not valid YAML at line 3, column 1: /) }]);
    const json = await evaluate({ resourceType: type, descriptor: '{"id": "dp-1",\n "x": }' });
    expect(json.body.errors).toEqual([{ path: 'descriptor', message: 'not valid JSON at line 2, column 7: ValueExpected' }]);
    expect((await evaluate({ resourceType: 'unknown-type', descriptor: { id: 'x' } })).body.errors).toEqual([
      { path: 'resourceType', message: 'no resource type is named "unknown-type"' },
    ]);
    expect((await evaluate({ resourceType: type, environment: 'mars', descriptor: { id: 'x' } })).body.errors[0].path).toBe('environment');
    expect((await evaluate({ resourceType: type, descriptor: { id: 'x' }, version: '9.9.9' })).body.errors).toEqual([
      { path: 'version', message: 'version "9.9.9" does not match the descriptor\'s null' },
    ]);
    const reports = await database.sql.unsafe(`select count(*)::int as count from ${SCHEMA}.evaluation_reports where resource_type = '${type}'`);
    expect(reports[0].count).toBe(0);
  });
});

describe('the Evaluate API with CUE', () => {
  it('attributes each CUE error to its policy, and requireConcrete decides whether a missing field fails', async () => {
    const type = await freshType();
    const owner = await activePolicy({ resourceType: type, name: 'owner', engine: 'cue', cueScript: 'owner: string & =~"^[a-z]+$"\n' });
    const concrete = await activePolicy({ resourceType: type, name: 'contract required', engine: 'cue', cueScript: 'dataContract: string\n' });
    const lenient = await activePolicy({
      resourceType: type,
      name: 'contract if given',
      engine: 'cue',
      requireConcrete: false,
      cueScript: 'dataContract: string\n',
    });
    const domain = await activePolicy({ resourceType: type, name: 'domain', engine: 'cue', cueScript: 'domain: "finance" | "sales"\n' });
    const metric = await activePolicy(
      { resourceType: type, engine: 'cue', cueScript: 'components: [...]\nvalue: len(components)\n', thresholds: [{ label: 'small', color: 'green', max: 2 }] },
      'enabled',
      'metric',
    );

    const { body } = await evaluate({ resourceType: type, descriptor: 'id: dp-cue\nowner: Alice\ndomain: finance\ncomponents: [a, b]\n' });
    const byEntity = Object.fromEntries(body.evaluationResults.map((r: EvaluationResult) => [r.governanceEntityId, r]));
    expect(byEntity[owner.id]).toMatchObject({ outcome: 'error', result: { satisfiesPolicy: false, isError: false } });
    expect(byEntity[owner.id].result.errors.join('\n')).toMatch(/^owner: invalid value "Alice"/);
    expect(byEntity[concrete.id]).toMatchObject({ outcome: 'error', result: { satisfiesPolicy: false } });
    expect(byEntity[concrete.id].result.errors.join('\n')).toMatch(/dataContract/);
    expect(byEntity[lenient.id]).toMatchObject({ outcome: 'ok', result: { satisfiesPolicy: true, errors: [] } });
    expect(byEntity[domain.id]).toMatchObject({ outcome: 'ok', result: { satisfiesPolicy: true, errors: [] } });
    expect(byEntity[metric.id]).toMatchObject({ outcome: 'ok', result: { value: 2, threshold: { label: 'small', color: 'green', max: 2 } } });
    expect(body).toMatchObject({ outcome: 'error', passed: false });
  });
});

describe('previous_vs_current', () => {
  it('gives the policy the deployed descriptor beside the current one, or null when none is deployed', async () => {
    const type = await freshType();
    await activePolicy({ resourceType: type, strategy: 'previous_vs_current', remoteEngineUrl: `${engine.url}/echo` });
    deployed.push({ id: 'dp-5', displayName: 'Sales', version: '0.9.0', content: 'id: dp-5\nversion: 0.9.0\n' });

    const { body: withDeployed } = await evaluate({ resourceType: type, descriptor: { id: 'dp-5', version: '1.0.0' } });
    expect(withDeployed.evaluationResults[0].result.details.seen).toEqual({
      previous: { id: 'dp-5', version: '0.9.0' },
      current: { id: 'dp-5', version: '1.0.0' },
    });
    const lookup = resolver.requests[0];
    expect(lookup.path).toBe('/resources');
    expect(lookup.query).toEqual({ environment: 'development', 'resource-types': type, offset: '0', limit: '1', id: 'dp-5' });

    const { body: first } = await evaluate({ resourceType: type, descriptor: { id: 'dp-new', version: '1.0.0' } });
    expect(first.evaluationResults[0].result.details.seen).toEqual({ previous: null, current: { id: 'dp-new', version: '1.0.0' } });
  });
});

describe('metrics', () => {
  it('carry the value and the threshold range it falls in', async () => {
    const type = await freshType();
    const metric = await activePolicy(
      {
        resourceType: type,
        remoteEngineUrl: `${engine.url}/metric`,
        thresholds: [
          { label: 'low', color: 'red', max: 50 },
          { label: 'good', color: 'green', min: 50 },
        ],
      },
      'enabled',
      'metric',
    );
    const { body } = await evaluate({ resourceType: type, descriptor: { id: 'dp-6' } });
    expect(body.evaluationResults).toEqual([
      expect.objectContaining({
        governanceEntityId: metric.id,
        governanceEntityType: 'metric',
        outcome: 'ok',
        result: { satisfiesPolicy: true, isError: false, errors: [], value: 72.5, threshold: { label: 'good', color: 'green', min: 50 } },
      }),
    ]);
  });
});

describe('policy tests (dry runs)', () => {
  it('run a draft against a descriptor and record nothing in the history', async () => {
    const type = await freshType();
    const draft = await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/not-ok` }, 'draft');
    const response = await invoke(policies.testPolicy, {
      method: 'POST',
      path: `/v1/computational-governance/policies/${draft.id}/test`,
      params: { id: draft.id },
      body: { environment: 'development', descriptor: descriptorYaml('dp-7') },
      headers: { prefer: 'wait=20' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ evaluationScope: 'policy', status: 'completed', outcome: 'error', passed: false });
    expect(response.body.evaluationResults[0]).toMatchObject({ governanceEntityStatus: 'draft', resource: { id: 'dp-7' } });
    expect((await results({ resourceId: 'dp-7' })).body.data).toEqual([]);
    const stored = await database.sql.unsafe(`select status from ${SCHEMA}.governance_entities where id = '${draft.id}'`);
    expect(stored[0].status).toBe('draft');
  });

  it('without a descriptor, run against every resource the perimeter resolver lists, page by page', async () => {
    const type = await freshType();
    const draft = await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` }, 'draft');
    for (const n of [1, 2, 3]) deployed.push({ id: `deployed-${n}`, displayName: `Deployed ${n}`, version: `${n}.0`, content: `id: deployed-${n}\n` });
    deployed.push({ id: 'broken', displayName: 'Broken', version: '1', content: 'id: [' });
    deployed.push({ id: 'nul\u0000id', displayName: 'Lone \ud800', version: '1', content: 'id: x\n' });
    const response = await invoke(policies.testPolicy, {
      method: 'POST',
      path: `/v1/computational-governance/policies/${draft.id}/test`,
      params: { id: draft.id },
      body: { environment: 'development' },
      headers: { prefer: 'wait=20' },
    });
    expect(response.status).toBe(200);
    expect(response.body.progress).toEqual({ total: 5, done: 5 });
    expect(response.body.evaluationResults.map((r: EvaluationResult) => `${r.resource.id}:${r.outcome}`)).toEqual([
      'deployed-1:ok',
      'deployed-2:ok',
      'deployed-3:ok',
      'broken:failed',
      'nulid:failed',
    ]);
    expect(response.body.evaluationResults[3].result.errors[0]).toMatch(
      /The descriptor the perimeter resolver gave for broken was refused \(descriptor: not valid YAML/,
    );
    // Text the database cannot store is not evaluated, and does not cost the page: its result is kept under a storable identity.
    expect(response.body.evaluationResults[4].resource.displayName).toBe('Lone \ufffd');
    expect(response.body.evaluationResults[4].result.errors[0]).toBe(
      'The perimeter resolver gave a resource the database cannot store as it is (resource.id: must not hold a NUL character (U+0000))',
    );
    // batch-size 2: pages at offsets 0 and 2, and a short page ends the walk.
    expect(resolver.requests.map((request) => `${request.query.offset}/${request.query.limit}`)).toEqual(['0/2', '2/2', '4/2']);
  });

  it('a resolver call that fails is retried with backoff; one that stays down fails the report with the reason', async () => {
    const type = await freshType();
    const draft = await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` }, 'draft');
    const test = () =>
      invoke(policies.testPolicy, {
        method: 'POST',
        path: '/x',
        params: { id: draft.id },
        body: { environment: 'development' },
        headers: { prefer: 'wait=20' },
      });
    deployed.push({ id: 'dp-1', displayName: 'one', version: '1', content: 'id: dp-1' });
    resolver.answer({ status: 503, body: { error: 'busy' } });
    expect((await test()).body).toMatchObject({ status: 'completed', progress: { total: 1, done: 1 } });
    expect(resolver.requests).toHaveLength(2);

    resolver.reset();
    // evaluation.resolver-retries defaults to 3: four calls, then the report fails.
    resolver.answer(...Array.from({ length: 4 }, () => ({ status: 503, body: { error: 'down' } })));
    const response = await test();
    expect(response.body).toMatchObject({ status: 'failed', outcome: 'failed', passed: false, error: expect.stringContaining('answered 503') });
    expect(resolver.requests).toHaveLength(4);
    // A 4xx is not worth asking again.
    resolver.reset();
    resolver.answer({ status: 404, body: { error: 'no such path' } });
    expect((await test()).body).toMatchObject({ status: 'failed', error: expect.stringContaining('answered 404') });
    expect(resolver.requests).toHaveLength(1);
  });
});

describe('results', () => {
  it('are an append-only history; latest=true keeps the newest per (entity, resource, environment)', async () => {
    const type = await freshType();
    const policy = await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` });
    await evaluate({ resourceType: type, descriptor: { id: 'dp-8' } });
    await evaluate({ resourceType: type, descriptor: { id: 'dp-8' } });
    await evaluate({ resourceType: type, descriptor: { id: 'dp-9' } });
    const all = await results({ policyId: policy.id });
    expect(all.body.meta.pagination.total).toBe(3);
    const latest = await results({ policyId: policy.id, latest: 'true' });
    expect(latest.body.data.map((r: EvaluationResult) => r.resource.id)).toEqual(['dp-9', 'dp-8']);
    expect((await results({ resourceId: 'dp-8', latest: 'true' })).body.data).toHaveLength(1);
    expect((await results({ policyId: policy.id, outcome: 'error' })).body.data).toEqual([]);
    expect((await results({ outcome: 'bad' })).status).toBe(400);
  });
});

describe('passive results', () => {
  it('are stored for a passive policy and refused for an active one', async () => {
    const passive = await activePolicy({ resourceType: 'dataproduct', trigger: 'passive', engine: undefined });
    const response = await invoke(policies.recordPassiveResult, {
      method: 'POST',
      path: `/v1/computational-governance/policies/${passive.id}/results`,
      params: { id: passive.id },
      body: { environment: 'development', resource: { id: 'dp-10', version: '2' }, satisfiesPolicy: false, errors: ['checked outside'] },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      governanceEntityId: passive.id,
      outcome: 'error',
      resource: { id: 'dp-10', version: '2', displayName: null },
      result: { satisfiesPolicy: false, isError: false, errors: ['checked outside'] },
    });
    expect((await results({ resourceId: 'dp-10' })).body.data).toHaveLength(1);

    const active = await activePolicy({ resourceType: 'dataproduct', remoteEngineUrl: `${engine.url}/ok` });
    const refused = await invoke(policies.recordPassiveResult, {
      method: 'POST',
      path: '/x',
      params: { id: active.id },
      body: { environment: 'development', resource: { id: 'x' }, satisfiesPolicy: true },
    });
    expect(refused.status).toBe(409);
  });
});

describe('runs that were lost', () => {
  it('are taken over by the sweeper once their lease ran out, writing nothing twice', async () => {
    const type = await freshType();
    await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` });
    const { body } = await evaluate({ resourceType: type, descriptor: { id: 'dp-11' } });
    // Make the finished report look like a run that died half-way.
    await database.sql.unsafe(
      `update ${SCHEMA}.evaluation_reports set status = 'running', lease_until = now() - interval '1 second', outcome = null where id = '${body.id}'`,
    );
    expect(await runAbandonedReports(await governance())).toBeGreaterThanOrEqual(1);
    const report = await readReport(body.id);
    expect(report.body).toMatchObject({ status: 'completed', outcome: 'ok' });
    expect(report.body.evaluationResults).toHaveLength(1);
  });

  it('are given up after evaluation.max-attempts starts: failed with the reason, not run for ever', async () => {
    const type = await freshType();
    await activePolicy({ resourceType: type, remoteEngineUrl: `${engine.url}/ok` });
    const poison = (await evaluate({ resourceType: type, descriptor: { id: 'dp-12' } })).body.id;
    const retried = (await evaluate({ resourceType: type, descriptor: { id: 'dp-13' } })).body.id;
    // Two runs that died: one started 5 times already (the default max-attempts), one 4 times.
    for (const [id, attempts] of [
      [poison, 5],
      [retried, 4],
    ] as const)
      await database.sql.unsafe(
        `update ${SCHEMA}.evaluation_reports set status = 'running', lease_until = now() - interval '1 second', outcome = null, attempts = ${attempts} where id = '${id}'`,
      );
    await runAbandonedReports(await governance());
    expect((await readReport(poison)).body).toMatchObject({
      status: 'failed',
      error: 'the evaluation was started 5 times and never finished (evaluation.max-attempts is 5)',
    });
    expect((await readReport(retried)).body).toMatchObject({ status: 'completed', outcome: 'ok' });
    // Given up for good: the sweeper leaves it alone from now on.
    const [{ attempts }] = await database.sql.unsafe(`select attempts from ${SCHEMA}.evaluation_reports where id = '${poison}'`);
    await runAbandonedReports(await governance());
    expect((await database.sql.unsafe(`select attempts, status from ${SCHEMA}.evaluation_reports where id = '${poison}'`))[0]).toEqual({
      attempts,
      status: 'failed',
    });
  });
});
