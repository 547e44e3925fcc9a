import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openApiDocument } from '#lib/api/openapi-document';
import { type Permission, type Role, ROLE_PERMISSIONS, ROLES } from '#lib/authorization/roles';
import { governance } from '#lib/governance/composition';
import type { LambdaHttpHandler } from '#lib/http/handler';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import { FakeServer } from '../fakes/fake-server';
import { deployedHandlersByRoute } from '../support/deployed-routes';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

/**
 * Every operation of the OpenAPI document x every role, in and out of scope: 403 exactly when the
 * role lacks the operation's permission where the call acts. Built from the document, so a new
 * endpoint is in the matrix the day it is published, and one without a declared permission fails.
 */

const SCHEMA = 'it_permission_matrix';
const GATED = 'gated';
const ELSEWHERE = 'elsewhere';

interface Operation {
  operationId: string;
  method: string;
  path: string;
  permission: Permission | 'authenticated';
  scope?: 'anywhere' | 'everywhere' | 'resource';
}

function operations(): Operation[] {
  const document = openApiDocument() as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      // Public operations (no security) are open to everyone: /health, /openapi.json.
      .filter(([, operation]) => (operation.security as unknown[]).length > 0)
      .map(([method, operation]) => ({
        operationId: operation.operationId as string,
        method: method.toUpperCase(),
        path,
        permission: operation['x-permission'] as Operation['permission'],
        scope: operation['x-permission-scope'] as Operation['scope'],
      })),
  );
}

/** operationId -> the handler of the function serverless.yml deploys it on (its router answers the call). */
async function handlers(): Promise<Map<string, LambdaHttpHandler>> {
  const routes = await deployedHandlersByRoute();
  return new Map(
    operations().flatMap(({ operationId, method, path }) =>
      routes.has(`${method} ${path}`) ? [[operationId, routes.get(`${method} ${path}`) as LambdaHttpHandler]] : [],
    ),
  );
}

const engine = new FakeServer(() => ({ status: 200, body: { satisfiesPolicy: true, value: 1, errors: [] } }));
let handlerOf: Map<string, LambdaHttpHandler>;

const tokenOf = (subject: string, roles?: Role[]) => technicalToken({ sub: subject, roles: roles ?? [] });

interface Call {
  params?: Record<string, string>;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

async function call(operation: Operation, request: Call, token: string) {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => request.params?.[name] ?? name);
  return invoke(handlerOf.get(operation.operationId) as LambdaHttpHandler, {
    method: operation.method,
    path,
    params: request.params,
    query: request.query,
    body: request.body ?? (['POST', 'PUT'].includes(operation.method) ? {} : undefined),
    headers: { authorization: `Bearer ${token}`, prefer: 'wait=20', ...request.headers },
  });
}

const admin = (operationId: string, request: Call) => {
  const operation = operations().find((candidate) => candidate.operationId === operationId) as Operation;
  return tokenOf('matrix-admin', ['admin']).then((token) => call(operation, request, token));
};

let created = 0;
/** A policy or metric of the gated type in production, in the given status, made by an admin. */
async function entity(kind: 'Policy' | 'Metric', status: 'draft' | 'enabled' = 'draft', changes: Record<string, unknown> = {}): Promise<string> {
  const response = await admin(`create${kind}`, {
    body: {
      name: `matrix ${++created}`,
      resourceType: GATED,
      environment: 'production',
      engine: 'remote',
      remoteEngineUrl: `${engine.url}/engine`,
      ...changes,
    },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const id = response.body.id as string;
  if (status === 'enabled') expect((await admin(`changeStatusOf${kind}`, { params: { id }, body: { status: 'enabled' } })).status).toBe(200);
  return id;
}

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** A policy or metric of the gated type in production, in grace (what a rollout moves). */
async function inGrace(kind: 'Policy' | 'Metric'): Promise<string> {
  const id = await entity(kind);
  expect((await admin(`changeStatusOf${kind}`, { params: { id }, body: { status: 'grace' } })).status).toBe(200);
  return id;
}

async function pendingApproval(): Promise<string> {
  const { requestPublish } = await import('#lib/governance/approvals/approval-service');
  return (await requestPublish(await governance(), 'policy', await entity('Policy'), 'someone-else')).id;
}

const entityCalls = (kind: 'Policy' | 'Metric'): Record<string, () => Promise<Call>> => {
  const body = () => ({
    name: `matrix ${++created}`,
    resourceType: GATED,
    environment: 'production',
    engine: 'remote',
    remoteEngineUrl: `${engine.url}/engine`,
  });
  return {
    [`create${kind}`]: async () => ({ body: body() }),
    [`update${kind}`]: async () => ({ params: { id: await entity(kind) }, body: body() }),
    [`delete${kind}`]: async () => ({ params: { id: await entity(kind) } }),
    [`publish${kind}`]: async () => ({ params: { id: await entity(kind) } }),
    [`changeStatusOf${kind}`]: async () => ({ params: { id: await entity(kind) }, body: { status: 'grace' } }),
    [`test${kind}`]: async () => ({ params: { id: await entity(kind) }, body: { environment: 'production', descriptor: 'id: urn:x' } }),
    // Its run goes through the queue, which no worker reads here: it answers 202 without waiting.
    [`impactOf${kind}`]: async () => ({ params: { id: await entity(kind) }, body: {}, headers: { prefer: 'wait=0' } }),
    [`scheduleRolloutOf${kind}`]: async () => ({ params: { id: await inGrace(kind) }, body: { enableAt: inDays(10) } }),
    [`cancelRolloutOf${kind}`]: async () => {
      const id = await inGrace(kind);
      expect((await admin(`scheduleRolloutOf${kind}`, { params: { id }, body: { enableAt: inDays(10) } })).status).toBe(201);
      return { params: { id } };
    },
  };
};

/**
 * A valid call acting on the gated resource type in production, for every operation whose permission
 * depends on what it acts on: in scope it must get past authorization, out of scope it must not.
 */
const RESOURCE_CALLS: Record<string, () => Promise<Call>> = {
  ...entityCalls('Policy'),
  ...entityCalls('Metric'),
  evaluate: async () => ({ body: { environment: 'production', resourceType: GATED, descriptor: 'id: urn:x' } }),
  proposeDescriptorFix: async () => ({ body: { environment: 'production', resourceType: GATED, descriptor: 'id: urn:x' } }),
  recordPassiveResult: async () => ({
    params: { id: await entity('Policy', 'enabled', { trigger: 'passive', engine: null, remoteEngineUrl: null }) },
    body: { environment: 'production', resource: { id: 'urn:x' }, satisfiesPolicy: true },
  }),
  registerResourceType: async () => ({ body: { name: GATED, resolverConfiguration: { url: engine.url, path: '/resources' } } }),
  deleteResourceType: async () => ({ params: { name: GATED } }),
  createException: async () => ({
    body: { policyId: await entity('Policy', 'enabled'), resourceId: 'urn:x', environment: 'production', reason: 'matrix', expiresAt: inDays(10) },
  }),
  deleteException: async () => {
    const response = await admin('createException', {
      body: { policyId: await entity('Policy', 'enabled'), resourceId: 'urn:y', environment: 'production', reason: 'matrix', expiresAt: inDays(10) },
    });
    return { params: { id: response.body.id } };
  },
  approveRequest: async () => ({ params: { id: await pendingApproval() }, body: {} }),
  rejectRequest: async () => ({ params: { id: await pendingApproval() }, body: {} }),
};

/** Operations on a resource type as a whole: a binding limited to some environments does not cover them. */
const SPANS_ENVIRONMENTS = new Set(['registerResourceType', 'deleteResourceType']);

const holds = (role: Role, permission: Operation['permission']) => permission === 'authenticated' || ROLE_PERMISSIONS[role].includes(permission);

beforeAll(async () => {
  await engine.start();
  // Each role four times: within the gated type in production, within another type, within the
  // gated type in another environment, and within the gated type in every environment.
  const bindings = ROLES.flatMap((role) => [
    `{ subjects = ["in-${role}"], roles = [${role}], resource-types = ["${GATED}"], environments = ["production"] }`,
    `{ subjects = ["type-${role}"], roles = [${role}], resource-types = ["${ELSEWHERE}"] }`,
    `{ subjects = ["env-${role}"], roles = [${role}], resource-types = ["${GATED}"], environments = ["qa"] }`,
    `{ subjects = ["gated-${role}"], roles = [${role}], resource-types = ["${GATED}"] }`,
  ]);
  await useHandlersOn(SCHEMA, `computational-governance-platform.authorization.bindings = [${bindings.join(', ')}]`);
  handlerOf = await handlers();
  for (const name of [GATED, ELSEWHERE])
    expect((await admin('registerResourceType', { body: { name, resolverConfiguration: { url: engine.url, path: '/resources' } } })).status).toBe(201);
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await engine.stop();
});

describe('the permission matrix', () => {
  it('every operation that is not public declares a permission, and serverless.yml deploys a handler for it', () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(40);
    for (const operation of all) {
      expect(operation.permission, `${operation.operationId} declares no permission`).toBeDefined();
      if (operation.permission !== 'authenticated') expect(operation.scope, operation.operationId).toMatch(/^(anywhere|everywhere|resource)$/);
      expect(handlerOf.get(operation.operationId), operation.operationId).toBeTypeOf('function');
    }
    for (const operation of all.filter((candidate) => candidate.scope === 'resource'))
      expect(RESOURCE_CALLS[operation.operationId], `${operation.operationId} has no call acting on a resource in this test`).toBeDefined();
  });

  it('every role, held everywhere: 403 naming the permission exactly when the role lacks it', async () => {
    for (const role of ROLES) {
      const token = await tokenOf(`global-${role}`, [role]);
      for (const operation of operations()) {
        const response = await call(
          operation,
          {
            params: Object.fromEntries(
              [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, name === 'id' ? '00000000-0000-4000-8000-000000000000' : 'nothing']),
            ),
          },
          token,
        );
        const label = `${role} ${operation.operationId}: ${response.status} ${JSON.stringify(response.body)}`;
        if (holds(role, operation.permission)) {
          expect(response.status, label).not.toBe(403);
          expect(response.status, label).toBeLessThan(500);
        } else {
          expect(response.status, label).toBe(403);
          expect(response.headers['content-type'], label).toBe('application/problem+json');
          expect(response.body.detail, label).toContain(operation.permission);
          expect(response.body.permission, label).toBe(operation.permission);
        }
      }
    }
  });

  it('a token without any role is refused everything but /me and the MCP endpoint (whose tools are refused one by one: tests/e2e/mcp-http.test.ts)', async () => {
    const token = await tokenOf('nobody', []);
    for (const operation of operations()) {
      const response = await call(operation, {}, token);
      if (operation.permission !== 'authenticated') expect(response.status, operation.operationId).toBe(403);
      else if (operation.operationId === 'getMe') expect(response.status).toBe(200);
      // Past authentication and authorization: the MCP transport's own answer to an empty message (406: not what it accepts; 405: not served).
      else expect([405, 406], operation.operationId).toContain(response.status);
    }
  });

  it('every role bound to a resource type and environment: in scope it gets past authorization, out of scope it is 403', async () => {
    for (const operation of operations().filter((candidate) => candidate.scope === 'resource')) {
      for (const role of ROLES) {
        // deleteResourceType takes the type away when it is allowed.
        expect(
          (await admin('registerResourceType', { body: { name: GATED, resolverConfiguration: { url: engine.url, path: '/resources' } } })).status,
        ).toBeLessThan(300);
        const request = await RESOURCE_CALLS[operation.operationId]();
        for (const outside of ['type', 'env']) {
          const response = await call(operation, request, await tokenOf(`${outside}-${role}`));
          expect(response.status, `${outside}-${role} ${operation.operationId}: ${JSON.stringify(response.body)}`).toBe(403);
          // The problem names the scope that was lacking, when the permission is held elsewhere.
          if (holds(role, operation.permission))
            expect(Object.keys(response.body.scope).sort(), operation.operationId).toEqual(['environment', 'resourceType']);
        }
        const inside = SPANS_ENVIRONMENTS.has(operation.operationId) ? `gated-${role}` : `in-${role}`;
        const response = await call(operation, request, await tokenOf(inside));
        const label = `${inside} ${operation.operationId}: ${response.status} ${JSON.stringify(response.body)}`;
        if (holds(role, operation.permission)) {
          expect(response.status, label).not.toBe(403);
          expect(response.status, label).toBeLessThan(500);
        } else expect(response.status, label).toBe(403);
      }
    }
  });

  it('a permission needed everywhere is refused to a binding limited to a resource type, admin included', async () => {
    for (const operation of operations().filter((candidate) => candidate.scope === 'everywhere')) {
      const response = await call(operation, {}, await tokenOf('in-admin'));
      expect(response.status, operation.operationId).toBe(403);
      expect(response.body.scope, operation.operationId).toBe('everywhere');
    }
  });

  it('reads held anywhere: a reader bound to one resource type reads', async () => {
    for (const operation of operations().filter((candidate) => candidate.scope === 'anywhere' && candidate.permission === 'governance:read')) {
      const response = await call(operation, { params: { id: '00000000-0000-4000-8000-000000000000', name: GATED } }, await tokenOf('in-reader'));
      expect(response.status, operation.operationId).not.toBe(403);
    }
  });
  it('a call acts on every version it takes out of force and on the type a policy is enforced on: bound to the asked version alone, or to the other type, is 403', async () => {
    // Version 1 enforced on the gated type in production; version 2, a draft, on the other type.
    const crossType = async () => {
      const id = await entity('Policy', 'enabled');
      const next = await admin('updatePolicy', {
        params: { id },
        body: { name: `matrix ${++created}`, resourceType: ELSEWHERE, environment: 'production', engine: 'remote', remoteEngineUrl: `${engine.url}/engine` },
      });
      expect(next.status, JSON.stringify(next.body)).toBe(201);
      return id;
    };
    const gatedScope = { resourceType: GATED, environment: 'production' };
    for (const [operationId, request] of [
      ['publishPolicy', async (id: string) => ({ params: { id } })],
      ['changeStatusOfPolicy', async (id: string) => ({ params: { id }, body: { status: 'grace', version: 2 } })],
      [
        'createException',
        async (id: string) => ({ body: { policyId: id, resourceId: 'urn:x', environment: 'production', reason: 'matrix', expiresAt: inDays(10) } }),
      ],
    ] as const) {
      const operation = operations().find((candidate) => candidate.operationId === operationId) as Operation;
      const id = await crossType();
      const refused = await call(operation, await request(id), await tokenOf('type-author'));
      expect(refused.status, `${operationId}: ${JSON.stringify(refused.body)}`).toBe(403);
      expect(refused.body.scope, operationId).toEqual(gatedScope);
      expect((await call(operation, await request(id), await tokenOf('matrix-admin', ['admin']))).status, operationId).toBeLessThan(300);
    }
    // Deciding needs the same: an approver of the other type may not approve the publish of version 2.
    const { requestPublish } = await import('#lib/governance/approvals/approval-service');
    const asked = await requestPublish(await governance(), 'policy', await crossType(), 'someone-else');
    const approveOperation = operations().find((candidate) => candidate.operationId === 'approveRequest') as Operation;
    const refused = await call(approveOperation, { params: { id: asked.id }, body: {} }, await tokenOf('type-approver'));
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.scope).toEqual(gatedScope);
  });
});
