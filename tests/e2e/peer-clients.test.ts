import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { EvaluationReport } from '#lib/governance/evaluation/report';
import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { FakeServer } from '../fakes/fake-server';
import { technicalToken } from '../support/tokens';

/**
 * Clients written for the peer governance platform (an assistant's tool server, a policy-authoring
 * toolkit), replayed as they call: the same paths, query strings and bodies, byte for byte.
 */
const baseUrl = inject('baseUrl');
const API = '/v1/computational-governance';

/**
 * One call as such a client makes it: the path and query as written, the body as its JSON text.
 * The peer platform's backend calls with a technical JWT that carries no roles (so it gets
 * authorization.technical-token-roles: reader, evaluator); the policies it reads are written by an
 * author (an admin token here).
 */
async function call<T = Record<string, unknown>>(method: string, pathAndQuery: string, body?: string, as: 'peer' | 'author' = 'peer') {
  const token = await technicalToken(as === 'peer' ? { sub: 'peer-platform', roles: undefined } : { sub: 'peer-author' });
  const response = await fetch(`${baseUrl}${pathAndQuery}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as T };
}

const create = async (collection: string, policy: Record<string, unknown>) => {
  const created = await call<EntityRepresentation>('POST', `${API}/${collection}`, JSON.stringify(policy), 'author');
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
};

/** A remote engine whose answers wait until the test opens the gate. */
let openGate: () => void = () => undefined;
let gate = Promise.resolve();
const engine = new FakeServer(async () => {
  await gate;
  return { status: 200, body: { satisfiesPolicy: false, errors: ['owner is not a team'] } };
});

const register = async (name: string) => {
  const registered = await call('POST', `${API}/resource-types`, JSON.stringify({ name, resolverConfiguration: { url: resolver.url, path: '/r' } }), 'author');
  expect(registered.status).toBe(201);
};

/** The perimeter of the type is empty: publishing evaluates nothing, so the engine hears only Evaluate. */
const resolver = new FakeServer((request) => ({ status: 200, body: { resources: [], page: { offset: Number(request.query.offset), limit: 100 } } }));

beforeAll(async () => {
  await Promise.all([engine.start(), resolver.start()]);
  const registered = await call(
    'POST',
    `${API}/resource-types`,
    JSON.stringify({ name: 'peer-type', resolverConfiguration: { url: resolver.url, path: '/r' } }),
    'author',
  );
  expect(registered.status).toBe(201);
});
afterAll(() => Promise.all([engine.stop(), resolver.stop()]));

describe('the policy list of a peer client', () => {
  const policies: EntityRepresentation[] = [];
  const named = (name: string) => policies.find((policy) => policy.name === name) as EntityRepresentation;
  const remote = (name: string, changes: Record<string, unknown> = {}) => ({
    name,
    resourceType: 'peer-type',
    engine: 'remote',
    remoteEngineUrl: `${engine.url}/${name}`,
    ...changes,
  });

  beforeAll(async () => {
    policies.push(
      await create('policies', remote('peer-c', { environment: 'development', severity: 'warning' })),
      await create('policies', remote('peer-a', { environment: null, severity: 'error' })),
      await create('policies', remote('peer-b', { environment: 'development', severity: 'info' })),
      await create('policies', remote('peer-d', { environment: 'production' })),
      await create('policies', remote('peer-e', { environment: 'development' })),
      await create('policies', { name: 'peer-f', resourceType: 'peer-type', trigger: 'passive' }),
    );
    for (const name of ['peer-a', 'peer-b', 'peer-d', 'peer-f'])
      expect((await call('POST', `${API}/policies/${named(name).id}/publish`, undefined, 'author')).status).toBe(200);
    expect((await call('POST', `${API}/policies/${named('peer-c').id}/status`, '{"status":"grace"}', 'author')).status).toBe(200);
  });

  it('reads status=enabled,grace&trigger=active&limit=200&sort-by=name&sort-order=asc&id-in=…&env=…: the active policies of that environment, by name', async () => {
    const ids = policies.map((policy) => policy.id).join(',');
    const page = await call<{ data: EntityRepresentation[]; meta: { pagination: Record<string, number> } }>(
      'GET',
      `${API}/policies?status=enabled,grace&trigger=active&limit=200&sort-by=name&sort-order=asc&id-in=${ids}&env=development`,
    );
    expect(page.status).toBe(200);
    // peer-d is of production, peer-e a draft, peer-f passive; peer-a applies to every environment.
    expect(page.body.data.map((policy) => [policy.name, policy.status, policy.environment])).toEqual([
      ['peer-a', 'enabled', null],
      ['peer-b', 'enabled', 'development'],
      ['peer-c', 'grace', 'development'],
    ]);
    expect(page.body.meta.pagination).toEqual({ limit: 200, offset: 0, total: 3 });
    expect(page.body.data.map((policy) => policy.id)).toEqual(['peer-a', 'peer-b', 'peer-c'].map((name) => named(name).id));
  });

  it('sorts by each field in both orders, ties by name; id-in keeps only the ids named', async () => {
    const names = async (query: string) =>
      (await call<{ data: EntityRepresentation[] }>('GET', `${API}/policies?${query}`)).body.data.map((policy) => policy.name);
    const two = `${named('peer-e').id},${named('peer-b').id}`;
    expect(await names(`id-in=${two}`)).toEqual(['peer-b', 'peer-e']);
    expect(await names(`id-in=${two}&sort-by=name&sort-order=desc`)).toEqual(['peer-e', 'peer-b']);
    const all = policies.map((policy) => policy.id).join(',');
    expect(await names(`id-in=${all}&sort-by=severity&sort-order=desc`)).toEqual(['peer-a', 'peer-d', 'peer-e', 'peer-f', 'peer-c', 'peer-b']);
    expect(await names(`id-in=${all}&sort-by=status`)).toEqual(['peer-e', 'peer-c', 'peer-a', 'peer-b', 'peer-d', 'peer-f']);
    expect(await names(`id-in=${all}&sort-by=createdAt&sort-order=desc`)).toEqual(['peer-f', 'peer-e', 'peer-d', 'peer-b', 'peer-a', 'peer-c']);
    // The move of peer-c to grace came last: its updatedAt is the newest.
    expect((await names(`id-in=${all}&sort-by=updatedAt&sort-order=desc&limit=1`))[0]).toBe('peer-c');
    expect(await names(`id-in=${all}&env=production&environment=production`)).toEqual(['peer-a', 'peer-d', 'peer-f']);
  });

  it('refuses what it cannot honour, naming the parameter: unknown ones, env against environment, limits, ids, sort fields', async () => {
    const problem = async (query: string) => {
      const answer = await call<{ errors: { path: string; message: string }[] }>('GET', `${API}/policies?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      return answer.body.errors;
    };
    expect(await problem('sortBy=name&limit=200')).toEqual([{ path: 'query.sortBy', message: 'unknown query parameter' }]);
    expect(await problem('env=development&environment=production')).toEqual([
      { path: 'query.env', message: 'env is another name for environment: give one of them, or the same value to both' },
    ]);
    expect(await problem('limit=501')).toEqual([{ path: 'query.limit', message: 'limit must be at most 500' }]);
    expect(await problem('id-in=peer-a')).toEqual([{ path: 'query.id-in.0', message: 'id-in must be a comma list of UUIDs' }]);
    expect(await problem('sort-by=severity&sort-order=up')).toEqual([{ path: 'query.sort-order', message: 'sort-order must be one of asc, desc' }]);
    expect(await problem('sort-by=owner')).toEqual([{ path: 'query.sort-by', message: 'sort-by must be one of name, createdAt, updatedAt, severity, status' }]);
    // The other lists share the mechanism.
    expect((await call<{ errors: unknown }>('GET', `${API}/results?env=qa&policy=x`)).body.errors).toEqual([
      { path: 'query.policy', message: 'unknown query parameter' },
    ]);
    expect((await call('GET', `${API}/metrics?sort-by=name&sort-order=desc&limit=500`)).status).toBe(200);
  });
});

describe('an LLM policy in the peer shape', () => {
  const body = (changes: Record<string, unknown>) => JSON.stringify({ name: 'peer-llm', resourceType: 'peer-type', engine: 'llm', ...changes });

  it('is written as governanceAgentSpec.prompt and read with both spellings, in every representation', async () => {
    const created = await call<EntityRepresentation>(
      'POST',
      `${API}/policies`,
      body({ governanceAgentSpec: { prompt: 'Every data product names an owner team.' } }),
      'author',
    );
    expect(created.status).toBe(201);
    const both = { llmRule: 'Every data product names an owner team.', governanceAgentSpec: { prompt: 'Every data product names an owner team.' } };
    expect(created.body).toMatchObject(both);
    const id = created.body.id;
    expect((await call('GET', `${API}/policies/${id}`)).body).toMatchObject(both);
    expect((await call<{ data: unknown[] }>('GET', `${API}/policies/${id}/versions`)).body.data).toEqual([expect.objectContaining(both)]);
    expect((await call<{ data: unknown[] }>('GET', `${API}/policies?id-in=${id}`)).body.data).toEqual([expect.objectContaining(both)]);

    const edited = await call(
      'PUT',
      `${API}/policies/${id}`,
      body({ llmRule: 'Owners are teams.', governanceAgentSpec: { prompt: 'Owners are teams.' } }),
      'author',
    );
    expect(edited.body).toMatchObject({ llmRule: 'Owners are teams.', governanceAgentSpec: { prompt: 'Owners are teams.' } });
    const cue = await call('POST', `${API}/policies`, body({ engine: 'cue', cueScript: 'id: string', llmRule: null }), 'author');
    expect(cue.body).toMatchObject({ llmRule: null, governanceAgentSpec: null });
  });

  it('refuses the two spellings with different texts, and the peer spelling where a rule does not belong, naming the field', async () => {
    const errors = async (text: string) => (await call<{ errors: unknown }>('POST', `${API}/policies`, text, 'author')).body.errors;
    expect(await errors(body({ llmRule: 'a', governanceAgentSpec: { prompt: 'b' } }))).toEqual([
      { path: 'governanceAgentSpec', message: 'governanceAgentSpec.prompt is another spelling of llmRule: give one of them, or the same text to both' },
    ]);
    expect(await errors(body({ engine: 'cue', cueScript: 'id: string', governanceAgentSpec: { prompt: 'b' } }))).toEqual([
      { path: 'governanceAgentSpec', message: 'governanceAgentSpec is only for engine llm' },
    ]);
    expect(await errors(body({ governanceAgentSpec: { prompt: 'b', model: 'x' } }))).toEqual([{ path: 'governanceAgentSpec.model', message: 'unknown field' }]);
  });
});

describe('evaluate, then poll, as a peer client does', () => {
  it('answers 202 with reportId, then the report through pending or running to completed, with the fields the client reads', async () => {
    await register('peer-gated');
    const policy = await create('policies', {
      name: 'peer-gate',
      resourceType: 'peer-gated',
      environment: 'qa',
      engine: 'remote',
      remoteEngineUrl: engine.url,
    });
    expect((await call('POST', `${API}/policies/${policy.id}/publish`, undefined, 'author')).status).toBe(200);
    gate = new Promise((resolve) => (openGate = resolve));

    const accepted = await call<{ reportId: string }>(
      'POST',
      `${API}/evaluate`,
      '{"id":"urn:dp:peer","displayName":"Peer product","environment":"qa","resourceType":"peer-gated","descriptor":"id: urn:dp:peer\\nowner: alice\\n","labels":["ci","peer"]}',
    );
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ reportId: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const seen: string[] = [];
    let report = {} as EvaluationReport;
    for (let poll = 0; poll < 300; poll++) {
      report = (await call<EvaluationReport>('GET', `${API}/evaluation-reports/${accepted.body.reportId}`)).body;
      seen.push(report.status);
      if (report.status !== 'pending' && report.status !== 'running') break;
      openGate();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(['pending', 'running']).toContain(seen[0]);
    expect(seen.at(-1)).toBe('completed');
    expect(report).toMatchObject({
      id: accepted.body.reportId,
      status: 'completed',
      outcome: 'error',
      passed: false,
      environment: 'qa',
      labels: ['ci', 'peer'],
    });
    expect(report.evaluationResults).toEqual([
      expect.objectContaining({
        governanceEntityId: policy.id,
        outcome: 'error',
        resource: { id: 'urn:dp:peer', displayName: 'Peer product', version: null, environment: 'qa', resourceType: 'peer-gated' },
        result: expect.objectContaining({ satisfiesPolicy: false, isError: false, errors: ['owner is not a team'] }),
      }),
    ]);
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0].body).toMatchObject({ content: 'id: urn:dp:peer\nowner: alice\n', resourceType: 'peer-gated', resourceId: 'urn:dp:peer' });
  });
});

describe('where in the descriptor a CUE error is, as a peer client reads it', () => {
  /** 60 lines of YAML: 18 components of 3 lines each; the kind of component 13 (line 47) breaks the policy, and so does the owner's email (line 5). */
  const descriptor = [
    'id: urn:dp:located',
    'name: Located product',
    'spec:',
    '  owner:',
    '    email: alice@example.com',
    '  components:',
    ...Array.from({ length: 18 }, (_, i) => [
      `    - name: component-${i}`,
      `      kind: ${i === 13 ? 'weird' : 'outputport'}`,
      `      version: 1.0.${i}`,
    ]).flat(),
  ].join('\n');

  it('adds descriptor:LINE:COL to each message and lists the locations in the result', async () => {
    expect(descriptor.split('\n')).toHaveLength(60);
    await register('peer-located');
    const policy = await create('policies', {
      name: 'peer-components',
      resourceType: 'peer-located',
      engine: 'cue',
      cueScript: 'spec: {\n  owner: { email: =~"@example[.]org$" }\n  components: [...{ kind: =~"^(outputport|workload)$" }]\n}\n',
    });
    expect((await call('POST', `${API}/policies/${policy.id}/publish`, undefined, 'author')).status).toBe(200);

    const accepted = await call<{ reportId: string }>(
      'POST',
      `${API}/evaluate`,
      JSON.stringify({
        id: 'urn:dp:located',
        displayName: 'Located product',
        environment: 'development',
        resourceType: 'peer-located',
        descriptor,
        labels: [],
      }),
    );
    expect(accepted.status).toBe(202);
    let report = {} as EvaluationReport;
    for (let poll = 0; poll < 300; poll++) {
      report = (await call<EvaluationReport>('GET', `${API}/evaluation-reports/${accepted.body.reportId}`)).body;
      if (report.status !== 'pending' && report.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(report.status).toBe('completed');
    const [result] = report.evaluationResults;
    expect(result.outcome).toBe('error');
    expect(result.result.errors, JSON.stringify(result.result)).toHaveLength(2);
    const kind = result.result.errors.find((message) => message.startsWith('spec.components.13.kind: '));
    expect(kind).toMatch(/^spec\.components\.13\.kind: invalid value "weird" .*\n(?: {4}policy\.cue:\d+:\d+\n)* {4}descriptor:47:7$/s);
    expect(result.result.errors.find((message) => message.startsWith('spec.owner.email: '))).toMatch(/\n {4}descriptor:5:5$/);
    expect(result.result.locations).toEqual(
      expect.arrayContaining([
        { path: 'spec.components.13.kind', line: 47, column: 7 },
        { path: 'spec.owner.email', line: 5, column: 5 },
      ]),
    );
    expect(descriptor.split('\n')[46]).toBe('      kind: weird');
  });
});
