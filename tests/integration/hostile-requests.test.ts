/**
 * Every operation of the OpenAPI document, sent malformed and hostile values (seeded, bounded):
 * no answer may be a 5xx, and none may take longer than the function's deadline (a handler that
 * blocks its event loop answers late instead of with its 504).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openApiDocument } from '#lib/api/openapi-document';
import { endpointRoute } from '#lib/http/endpoint-route';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import { FakeServer } from '../fakes/fake-server';
import { FakeHostedModel } from '../fakes/hosted-model';
import { apiGatewayEvent, lambdaContext } from '../support/api-gateway-event';
import { deployedHandlersByRoute } from '../support/deployed-routes';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { present } from '../support/present';
import { technicalToken } from '../support/tokens';

const SCHEMA = 'it_hostile';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const VARIANTS_PER_OPERATION = 40;
/** The deadline each call gets, as Lambda's remaining time: it answers 504 a second before. */
const DEADLINE_MS = 15_000;

const resolver = new FakeServer((request) =>
  request.path === '/resources'
    ? {
        status: 200,
        body: {
          resources: [{ id: 'dp-1', displayName: 'One', version: '1', content: 'id: dp-1\nowner: alice\ndomain: finance\n' }],
          page: { offset: 0, limit: 100, total: 1 },
        },
      }
    : { status: 404 },
);
const remoteEngine = new FakeServer(() => ({ status: 200, body: { satisfiesPolicy: true, errors: [], value: 1 } }));
const model = new FakeHostedModel();

/** mulberry32: a small seeded generator, so that a failing run can be replayed with FUZZ_SEED. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] };
}

const nested = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
const HOSTILE_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '😀',
  '%00',
  "' or 1=1 --",
  '../../../etc/passwd',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  'x'.repeat(70_000),
  '2147483648',
  '-1',
  '1e400',
  'NaN',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]:9/',
  'file:///etc/passwd',
  'dataproduct',
  'development',
];
const HOSTILE_YAML = [
  'a: &a [*a]\n',
  [
    'a: &a [x, x, x, x, x, x, x, x, x]',
    ...'bcdefg'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcdefg'[index]}`).join(', ')}]`),
  ].join('\n'),
  `${'- '.repeat(50_000)}x`,
  `a: ${'['.repeat(50_000)}`,
  `{"a": ${'['.repeat(50_000)}`,
  Array.from({ length: 20_000 }, (_, index) => `key${index}: v`).join('\n'),
  'id: dp-1\nowner: a\nowner: b\n',
  'id: dp-1\nowner: a\nowner: a\n',
  'id: "dp\\0"\n',
  'id: dp-1\nname: "\\ud800"\n',
  'id: dp-1\n---\nid: dp-2\n',
  '- a\n- b\n',
  'id: dp-1\nowner: alice\ndomain: finance\n',
];
const HOSTILE_CUE = [
  'import "os"\n',
  'x: x + 1\n',
  'a: int\na: string\n',
  `${'a: {'.repeat(500)}${'}'.repeat(500)}`,
  '_|_\n',
  'import "list"\nx: [for i in list.Range(0, 100000, 1) for j in list.Range(0, 100000, 1) if i * j < 0 {i}]\n',
  'owner: string\n',
];
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2_147_483_648,
  // 2^53 + 1, past the safe integers: it reads as 2^53, as the literal 9_007_199_254_740_993 would.
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  {},
  [],
  nested(150),
  Array(5000).fill('x'),
  JSON.parse('{"__proto__": {"polluted": true}}'),
  { constructor: { prototype: { x: 1 } } },
];

/** Bodies that pass validation, to start mutating from (keyed by the schema's name). */
function validBodies(ids: Record<string, string>, pick: <T>(items: readonly T[]) => T): Record<string, unknown> {
  const modelConfig = {
    provider: 'hosted_llm',
    api_key: 'fuzz-key-123456789',
    endpoint: model.url,
    api_version: '2024-10-21',
    model: 'gpt-4o',
    deployment: 'fuzz',
  };
  const policy = { name: 'Fuzzed', resourceType: 'dataproduct', environment: 'development', engine: 'cue', cueScript: 'owner: string\n', tags: ['a'] };
  return {
    ModelConfigurationInput: modelConfig,
    ChatRequest: { query: 'Which policies apply to data products?' },
    ResourceTypeInput: { name: `fuzz-${ids.counter}`, configuration: { resourceName: 'id' }, resolverConfiguration: { url: resolver.url, path: '/resources' } },
    PolicyInput: policy,
    MetricInput: { ...policy, engine: 'remote', cueScript: undefined, remoteEngineUrl: remoteEngine.url },
    StatusMove: { status: pick(['draft', 'grace', 'enabled', 'disabled']) },
    PolicyTestInput: { environment: 'development', descriptor: 'id: dp-1\nowner: alice\n' },
    PassiveResultInput: { environment: 'development', resource: { id: 'dp-1' }, satisfiesPolicy: false, errors: ['e'], details: { a: 1 } },
    EvaluateInput: { environment: 'development', resourceType: 'dataproduct', descriptor: 'id: dp-1\nowner: alice\n', labels: ['ci'] },
  };
}

/** Sets a hostile value somewhere in a copy of `body` (an existing field, a nested one, or a new one). */
function mutate(body: unknown, random: ReturnType<typeof generator>): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  if (copy === null || typeof copy !== 'object') return random.pick(HOSTILE_VALUES);
  const keys = Object.keys(copy);
  const key = random.next() < 0.15 ? random.pick(['unknownField', '__proto__', 'constructor', '\u0000', '\ud800']) : random.pick(keys);
  const current = copy[key];
  let value: unknown;
  if (key === 'descriptor' || (typeof current === 'string' && random.next() < 0.2)) value = random.pick(HOSTILE_YAML);
  else if (key === 'cueScript') value = random.pick(HOSTILE_CUE);
  else if (current && typeof current === 'object' && !Array.isArray(current) && random.next() < 0.6) value = mutate(current, random);
  else if (Array.isArray(current) && random.next() < 0.5) value = [random.pick(HOSTILE_TEXT), random.pick(HOSTILE_VALUES)];
  else value = random.next() < 0.6 ? random.pick(HOSTILE_TEXT) : random.pick(HOSTILE_VALUES);
  copy[key] = value;
  return copy;
}

interface Operation {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly parameters: Array<{ in: 'path' | 'query'; name: string }>;
  readonly bodySchema?: string;
}

function operations(): Operation[] {
  const document = openApiDocument() as unknown as {
    paths: Record<
      string,
      Record<string, { operationId: string; parameters?: Operation['parameters']; requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>
    >;
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      bodySchema: operation.requestBody?.content['application/json']?.schema.$ref?.split('/').at(-1),
    })),
  );
}

/** A path segment as a client would write it; text that is not valid Unicode is sent as bytes that are not UTF-8. */
const rawSegment = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

let routes: Awaited<ReturnType<typeof deployedHandlersByRoute>>;
const ids: Record<string, string> = { counter: '0' };

beforeAll(async () => {
  await Promise.all([resolver.start(), remoteEngine.start(), model.start()]);
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      cue-config.timeout = "3 seconds"
      resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "${resolver.url}", path = "/resources" } } ]
    }`,
  );
  routes = await deployedHandlersByRoute();
  // Through the function's router, as API Gateway calls it: on the route's own path.
  const call = (route: string, request: { body?: unknown; params?: Record<string, string> }) => {
    const [method, template] = route.split(' ');
    return invoke(present(routes.get(route), `the handler of ${route}`), { method, path: endpointRoute(template, request.params, undefined), ...request });
  };
  const policy = await call('POST /v1/computational-governance/policies', {
    body: { name: 'Owner', resourceType: 'dataproduct', environment: 'development', engine: 'cue', cueScript: 'owner: string\n' },
  });
  ids.policy = policy.body.id;
  await call('POST /v1/computational-governance/policies/{id}/publish', { params: { id: ids.policy } });
  const passive = await call('POST /v1/computational-governance/policies', {
    body: { name: 'Passive', resourceType: 'dataproduct', environment: 'development', trigger: 'passive' },
  });
  ids.passive = passive.body.id;
  await call('POST /v1/computational-governance/policies/{id}/publish', { params: { id: ids.passive } });
  const metric = await call('POST /v1/computational-governance/metrics', {
    body: { name: 'Size', resourceType: 'dataproduct', environment: 'development', engine: 'remote', remoteEngineUrl: remoteEngine.url },
  });
  ids.metric = metric.body.id;
  const report = await invoke(present(routes.get('POST /v1/computational-governance/evaluate'), 'the handler of POST /evaluate'), {
    method: 'POST',
    path: '/v1/computational-governance/evaluate',
    body: { environment: 'development', resourceType: 'dataproduct', descriptor: 'id: dp-1\nowner: alice\n' },
    headers: { prefer: 'wait=10' },
  });
  ids.report = report.body.id;
  for (const kind of ['llm', 'embedder']) {
    const body = { provider: 'hosted_llm', api_key: 'fuzz-key-123456789', endpoint: model.url, api_version: '2024-10-21', model: 'm', deployment: 'd' };
    expect((await call(`POST /assistant/v1/${kind}/config`, { body })).status).toBe(201);
  }
  expect(Object.values(ids).every(Boolean)).toBe(true);
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await Promise.all([resolver.stop(), remoteEngine.stop(), model.stop()]);
});

/** A value each parameter accepts, pointing at the entities made before the run. */
function validParameter(name: string, operationPath: string): string {
  const values: Record<string, string> = {
    id: operationPath.includes('metrics')
      ? ids.metric
      : operationPath.includes('reports')
        ? ids.report
        : operationPath.endsWith('/results')
          ? ids.passive
          : ids.policy,
    name: 'dataproduct',
    limit: '10',
    offset: '0',
    version: '1',
    status: 'enabled',
    resourceType: 'dataproduct',
    environment: 'development',
    trigger: 'active',
    text: 'owner',
    verify: 'false',
    latest: 'true',
    outcome: 'ok',
    resourceId: 'dp-1',
    policyId: ids.policy,
  };
  return values[name] ?? '1';
}

/** Writes that could take away what later operations stand on (the model configurations, the resource type) go last. */
const LAST = new Set(['saveLlmConfig', 'saveEmbedderConfig', 'registerResourceType', 'deleteResourceType']);

describe('hostile requests', () => {
  it('every operation of the OpenAPI document, malformed and hostile: no 5xx, none past the deadline', { timeout: 900_000 }, async () => {
    const random = generator(SEED);
    const ordered = operations().sort((a, b) => Number(LAST.has(a.operationId)) - Number(LAST.has(b.operationId)));
    const failures: string[] = [];
    let sent = 0;
    for (const operation of ordered) {
      const handler = present(routes.get(`${operation.method} ${operation.path}`), `the handler in serverless.yml of ${operation.method} ${operation.path}`);
      for (let variant = 0; variant < VARIANTS_PER_OPERATION; variant++) {
        ids.counter = String(sent);
        // Mostly one hostile value at a time among valid ones, so that it reaches past validation.
        const hostileParameter =
          operation.parameters.length > 0 && (!operation.bodySchema || random.next() < 0.3) ? random.pick(operation.parameters).name : undefined;
        const params: Record<string, string> = {};
        const query: Record<string, string> = {};
        for (const parameter of operation.parameters) {
          const value =
            parameter.name === hostileParameter || random.next() < 0.05
              ? random.pick([...HOSTILE_TEXT, String(Math.floor(random.next() * 200))])
              : validParameter(parameter.name, operation.path);
          if (parameter.in === 'path') params[parameter.name] = value;
          else if (parameter.name === hostileParameter || random.next() < 0.5) query[parameter.name] = value;
        }
        const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => rawSegment(params[name] ?? ''));
        const headers: Record<string, string> = { authorization: `Bearer ${await technicalToken({ sub: 'fuzzer' })}` };
        let body: string | undefined;
        if (operation.bodySchema) {
          headers['content-type'] =
            random.next() < 0.9 ? 'application/json' : random.pick(['text/plain', 'application/xml', '', 'application/json; charset=utf-16']);
          const valid = validBodies(ids, random.pick)[operation.bodySchema] ?? {};
          const roll = random.next();
          if (hostileParameter && roll < 0.9) body = JSON.stringify(valid);
          else if (roll < 0.08)
            body = random.pick([
              '{"a": ',
              '[]',
              '"text"',
              '12',
              'null',
              `{"a": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
              `{"a": "${'x'.repeat(1_100_000)}"}`,
              '',
            ]);
          else if (roll < 0.15) body = JSON.stringify(valid);
          else body = JSON.stringify(random.next() < 0.3 ? mutate(mutate(valid, random), random) : mutate(valid, random));
        }
        if (random.next() < 0.05) headers.authorization = random.pick(['', 'Bearer', 'Basic Og==', 'Bearer a.b.c', `Bearer ${'x'.repeat(20_000)}`]);
        if (random.next() < 0.1) headers.prefer = random.pick(['wait=99999999999999999999', 'wait=-1', 'wait=2', 'wait=abc']);
        if (random.next() < 0.05) headers['x-request-id'] = random.pick(['\u0000', 'x'.repeat(5000), '\ud800']);
        const event = apiGatewayEvent({
          method: operation.method,
          path,
          headers,
          body,
          query: Object.keys(query).length ? query : undefined,
          params: Object.keys(params).length ? params : undefined,
        });
        const context = { ...lambdaContext(`fuzz-${sent}`), getRemainingTimeInMillis: () => DEADLINE_MS };
        const started = performance.now();
        const response = await handler(event, context);
        const elapsed = performance.now() - started;
        sent++;
        const described = () =>
          `${operation.method} ${path} ${JSON.stringify(query).slice(0, 200)} ${(body ?? '').slice(0, 300)} -> ` +
          `${response.statusCode} ${String(response.body).slice(0, 300)}`;
        if ((response.statusCode ?? 0) >= 500) failures.push(`${described()}`);
        else if (elapsed > DEADLINE_MS) failures.push(`took ${Math.round(elapsed)} ms: ${described()}`);
      }
    }
    expect(sent).toBe(ordered.length * VARIANTS_PER_OPERATION);
    expect(failures, `seed ${SEED}`).toEqual([]);
  });
});
