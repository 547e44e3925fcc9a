import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Role } from '#lib/authorization/roles';
import type { Database } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as approvalsModule from '../../functions/governance/approvals';
import type * as exceptionsModule from '../../functions/governance/exceptions';
import type * as policiesModule from '../../functions/governance/policies';
import { FakeServer } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

/**
 * Scope follows what a call would change (issue 44, item 2): a move or publish needs permission over
 * every version it puts into force and every version it takes out of force; an exception, over the
 * resource types its policy is enforced on. Four-eyes is on, so moves become requests.
 */

const SCHEMA = 'it_enforcement_scope';
const API = '/v1/computational-governance';

const engine = new FakeServer(() => ({ status: 200, body: { satisfiesPolicy: true, errors: [] } }));
let database: Database;
let policies: typeof policiesModule;
let approvals: typeof approvalsModule;
let exceptions: typeof exceptionsModule;

type Caller = { sub: string; roles?: Role[] };
const LEAD: Caller = { sub: 'lead', roles: ['author', 'approver'] };
const BO: Caller = { sub: 'bo', roles: ['approver'] };
const ADMIN: Caller = { sub: 'root', roles: ['admin'] };
/** Bound in the settings below: author, approver or both, each within one environment or one resource type. */
const DEV_AUTHOR: Caller = { sub: 'dev-author' };
const DEV_APPROVER: Caller = { sub: 'dev-approver' };
const COMPONENT_LEAD: Caller = { sub: 'component-lead' };

async function as(caller: Caller, handler: Parameters<typeof invoke>[0], request: Omit<Parameters<typeof invoke>[1], 'headers'>) {
  const token = await technicalToken({ sub: caller.sub, roles: caller.roles ?? [] });
  return invoke(handler, { ...request, headers: { authorization: `Bearer ${token}` } });
}

const statuses = async (id: string) =>
  (await database.sql.unsafe(`select version, status from ${SCHEMA}.governance_entities where id = $1 order by version`, [id])).map(
    (row) => `v${row.version} ${row.status}`,
  );
const setStatus = (id: string, version: number, status: string) =>
  database.sql.unsafe(`update ${SCHEMA}.governance_entities set status = $3 where id = $1 and version = $2`, [id, version, status]);

let count = 0;
/** A policy whose version 1 is as `first` says and version 2 as `second` says, with their statuses set as an earlier approval would have. */
async function twoVersions(first: Record<string, string>, second: Record<string, string>, statuses: [string, string]): Promise<string> {
  const body = (fields: Record<string, string>) => ({ name: `owner set ${++count}`, engine: 'remote', remoteEngineUrl: `${engine.url}/policy`, ...fields });
  const created = await as(ADMIN, policies.createPolicy, { method: 'POST', path: `${API}/policies`, body: body(first) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  await setStatus(id, 1, 'enabled');
  const next = await as(ADMIN, policies.updatePolicy, {
    method: 'PUT',
    path: `${API}/policies/${id}`,
    params: { id },
    body: { ...body(second), name: created.body.name },
  });
  expect(next.status, JSON.stringify(next.body)).toBe(201);
  await setStatus(id, 1, statuses[0]);
  await setStatus(id, 2, statuses[1]);
  return id;
}

/** Version 1 enforced on dataproduct, version 2 a draft on component. */
const enforcedOnDataproductDraftOnComponent = () =>
  twoVersions({ resourceType: 'dataproduct', environment: 'production' }, { resourceType: 'component', environment: 'production' }, ['enabled', 'draft']);

const move = (caller: Caller, id: string, version: number, status: string) =>
  as(caller, policies.changeStatusOfPolicy, { method: 'POST', path: `${API}/policies/${id}/status`, params: { id }, body: { status, version } });
const publish = (caller: Caller, id: string) => as(caller, policies.publishPolicy, { method: 'POST', path: `${API}/policies/${id}/publish`, params: { id } });
const approve = (caller: Caller, id: string) =>
  as(caller, approvals.approveRequest, { method: 'POST', path: `${API}/approvals/${id}/approve`, params: { id }, body: {} });
const waive = (caller: Caller, policyId: string) =>
  as(caller, exceptions.createException, {
    method: 'POST',
    path: `${API}/exceptions`,
    body: { policyId, resourceId: 'urn:dp:sales', reason: 'migrating', expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() },
  });

beforeAll(async () => {
  await engine.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.authorization {
      four-eyes.enabled = true
      bindings = [
        { subjects = ["dev-author"], roles = [author], environments = ["development"] }
        { subjects = ["dev-approver"], roles = [approver], environments = ["development"] }
        { subjects = ["component-lead"], roles = [author, approver], resource-types = ["component"] }
      ]
    }`,
  );
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  approvals = await import('../../functions/governance/approvals');
  exceptions = await import('../../functions/governance/exceptions');
  const { registerResourceType } = await import('../../functions/governance/resource-types');
  for (const name of ['dataproduct', 'component']) {
    const registered = await as(ADMIN, registerResourceType, {
      method: 'POST',
      path: `${API}/resource-types`,
      body: { name, configuration: { resourceName: 'id' }, resolverConfiguration: { url: engine.url, path: '/resources' } },
    });
    // A setting of the service: under four-eyes, a request someone else approves.
    expect(registered.status).toBe(202);
    expect((await approve(BO, registered.body.approvalId)).status).toBe(200);
  }
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await engine.stop();
});

describe('a move needs scope over what it takes out of force', () => {
  it('enabling the development version disables the production one: an author or approver scoped to development may do neither', async () => {
    const id = await twoVersions({ resourceType: 'dataproduct', environment: 'development' }, { resourceType: 'dataproduct', environment: 'production' }, [
      'disabled',
      'enabled',
    ]);
    const asked = await move(DEV_AUTHOR, id, 1, 'enabled');
    expect(asked.status).toBe(403);
    expect(asked.body.scope).toEqual({ resourceType: 'dataproduct', environment: 'production' });

    // Asked by someone allowed everywhere, it still needs a decider allowed everywhere it changes.
    const request = await move(LEAD, id, 1, 'enabled');
    expect(request.status).toBe(202);
    expect((await approve(DEV_APPROVER, request.body.approvalId)).status).toBe(403);
    expect(await statuses(id)).toEqual(['v1 disabled', 'v2 enabled']);
    expect((await approve(BO, request.body.approvalId)).status).toBe(200);
    expect(await statuses(id)).toEqual(['v1 enabled', 'v2 disabled']);
  });

  it('a move that puts nothing into force needs scope over the version alone', async () => {
    const id = await twoVersions({ resourceType: 'dataproduct', environment: 'development' }, { resourceType: 'dataproduct', environment: 'production' }, [
      'enabled',
      'draft',
    ]);
    expect((await move(DEV_AUTHOR, id, 1, 'disabled')).status).toBe(202);
  });

  it('publishing a version of another resource type retires the enforced one: people scoped to that other type may not', async () => {
    const id = await enforcedOnDataproductDraftOnComponent();
    const refused = await publish(COMPONENT_LEAD, id);
    expect(refused.status).toBe(403);
    expect(refused.body.scope).toEqual({ resourceType: 'dataproduct', environment: 'production' });
    const request = await publish(LEAD, id);
    expect(request.status).toBe(202);
    expect((await approve(COMPONENT_LEAD, request.body.approvalId)).status).toBe(403);
    expect(await statuses(id)).toEqual(['v1 enabled', 'v2 draft']);
  });
});

describe('an exception needs scope over the policy as enforced', () => {
  it("people scoped to the newest draft version's resource type cannot waive what is enforced on another", async () => {
    const id = await enforcedOnDataproductDraftOnComponent();
    const refused = await waive(COMPONENT_LEAD, id);
    expect(refused.status).toBe(403);
    expect(refused.body.scope).toMatchObject({ resourceType: 'dataproduct' });
    const request = await waive(LEAD, id);
    expect(request.status).toBe(202);
    expect((await approve(COMPONENT_LEAD, request.body.approvalId)).status).toBe(403);
    expect((await approve(BO, request.body.approvalId)).status).toBe(200);
  });
});
