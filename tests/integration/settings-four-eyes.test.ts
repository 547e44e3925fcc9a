import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Role } from '#lib/authorization/roles';
import type { Database } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as llmModule from '../../functions/assistant/llm-config';
import type * as accessModule from '../../functions/governance/access';
import type * as approvalsModule from '../../functions/governance/approvals';
import type * as resourceTypesModule from '../../functions/governance/resource-types';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

/**
 * One admin does not pass four-eyes alone (issue 44, item 5): under four-eyes a change of the role
 * bindings, of a resource type (its resolver) or of the LLM's configuration is a request, applied
 * only when someone else approves it; the request shows no API key.
 */

const SCHEMA = 'it_settings_four_eyes';
const API = '/v1/computational-governance';
const API_KEY = 'sk-settings-four-eyes-0123456789';

let database: Database;
let access: typeof accessModule;
let approvals: typeof approvalsModule;
let resourceTypes: typeof resourceTypesModule;
let llm: typeof llmModule;

type Caller = { sub: string; roles?: Role[] };
const ROOT: Caller = { sub: 'root', roles: ['admin'] };
const BO: Caller = { sub: 'bo', roles: ['approver'] };
/** Bound below: an approver within the development environment only. */
const DEV_APPROVER: Caller = { sub: 'dev-approver' };

async function as(caller: Caller, handler: Parameters<typeof invoke>[0], request: Omit<Parameters<typeof invoke>[1], 'headers'>) {
  const token = await technicalToken({ sub: caller.sub, roles: caller.roles ?? [] });
  return invoke(handler, { ...request, headers: { authorization: `Bearer ${token}` } });
}

const approve = (caller: Caller, id: string) =>
  as(caller, approvals.approveRequest, { method: 'POST', path: `${API}/approvals/${id}/approve`, params: { id }, body: {} });
const bindingsOf = async (subject: string) =>
  (await as(ROOT, access.listRoleBindings, { method: 'GET', path: `${API}/role-bindings` })).body.data.filter((binding: { subjects: string[] }) =>
    binding.subjects.includes(subject),
  );
const resolverOf = async () =>
  (await as(ROOT, resourceTypes.getGovernanceResourceType, { method: 'GET', path: `${API}/resource-types/dataproduct`, params: { name: 'dataproduct' } })).body
    .resolverConfiguration.url;
const register = (url: string) =>
  as(ROOT, resourceTypes.registerResourceType, {
    method: 'POST',
    path: `${API}/resource-types`,
    body: { name: 'dataproduct', configuration: { resourceName: 'id' }, resolverConfiguration: { url, path: '/resources' } },
  });

beforeAll(async () => {
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      authorization {
        four-eyes.enabled = true
        bindings = [ { subjects = ["dev-approver"], roles = [approver], environments = ["development"] } ]
      }
      resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9001", path = "/resources" } } ]
    }`,
  );
  database = await testDatabase(SCHEMA);
  access = await import('../../functions/governance/access');
  approvals = await import('../../functions/governance/approvals');
  resourceTypes = await import('../../functions/governance/resource-types');
  llm = await import('../../functions/assistant/llm-config');
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
});

describe('four-eyes over the service settings', () => {
  it("an admin's binding of a second identity waits for someone else: not the admin, not an approver limited to an environment", async () => {
    const asked = await as(ROOT, access.createRoleBinding, {
      method: 'POST',
      path: `${API}/role-bindings`,
      body: { subjects: ['root-alt'], roles: ['approver'] },
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      kind: 'role-binding',
      status: 'pending',
      entity: null,
      target: { kind: 'role-binding', id: null },
      requestedBy: 'root',
    });
    expect(asked.body.diff.changes).toContainEqual({ field: 'roles', before: null, after: ['approver'] });
    expect(await bindingsOf('root-alt')).toEqual([]);

    expect((await approve(ROOT, asked.body.approvalId)).status).toBe(403);
    expect((await approve(DEV_APPROVER, asked.body.approvalId)).status).toBe(403);
    expect(await bindingsOf('root-alt')).toEqual([]);

    const approved = await approve(BO, asked.body.approvalId);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const [binding] = await bindingsOf('root-alt');
    expect(binding).toMatchObject({ roles: ['approver'], createdBy: 'root' });
    expect(approved.body.outcome).toEqual({ roleBindingId: binding.id });

    const removal = await as(ROOT, access.deleteRoleBinding, { method: 'DELETE', path: `${API}/role-bindings/${binding.id}`, params: { id: binding.id } });
    expect(removal.status).toBe(202);
    expect(await bindingsOf('root-alt')).toHaveLength(1);
    expect((await approve(BO, removal.body.approvalId)).status).toBe(200);
    expect(await bindingsOf('root-alt')).toEqual([]);
  });

  it("re-pointing a resource type's resolver is a request; a second request of the same type, approved after the first changed it, is a 409", async () => {
    const first = await register('http://127.0.0.1:9002');
    const second = await register('http://127.0.0.1:9003');
    expect(first.status).toBe(202);
    expect(first.body.diff.changes).toEqual([{ field: 'resolverUrl', before: 'http://127.0.0.1:9001', after: 'http://127.0.0.1:9002' }]);
    expect(await resolverOf()).toBe('http://127.0.0.1:9001');

    expect((await approve(ROOT, first.body.approvalId)).status).toBe(403);
    expect((await approve(BO, first.body.approvalId)).status).toBe(200);
    expect(await resolverOf()).toBe('http://127.0.0.1:9002');
    expect((await approve(BO, second.body.approvalId)).status).toBe(409);
    expect(await resolverOf()).toBe('http://127.0.0.1:9002');

    const removal = await as(ROOT, resourceTypes.deleteResourceType, {
      method: 'DELETE',
      path: `${API}/resource-types/dataproduct`,
      params: { name: 'dataproduct' },
    });
    expect(removal.status).toBe(202);
    expect(await resolverOf()).toBe('http://127.0.0.1:9002');
  });

  it('the LLM configuration is stored only once someone else approves; the request never shows or stores the API key in clear', async () => {
    const body = {
      provider: 'hosted_llm',
      api_key: API_KEY,
      endpoint: 'http://127.0.0.1:9004',
      api_version: '2024-06-01',
      model: 'gpt-4o',
      deployment: 'gpt-4o',
    };
    const asked = await as(ROOT, llm.saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ kind: 'model-config', target: { kind: 'llm', id: 'llm' } });
    expect(JSON.stringify(asked.body)).not.toContain(API_KEY);
    const [stored] = await database.sql.unsafe(`select request::text as request, diff::text as diff, sealed from ${SCHEMA}.approvals where id = $1`, [
      asked.body.approvalId,
    ]);
    expect(`${stored.request} ${stored.diff} ${stored.sealed}`).not.toContain(API_KEY);
    expect(stored.sealed).toBeTruthy();
    expect((await as(ROOT, llm.getLlmConfig, { method: 'GET', path: '/assistant/v1/llm/config' })).status).toBe(404);

    expect((await approve(ROOT, asked.body.approvalId)).status).toBe(403);
    const approved = await approve(BO, asked.body.approvalId);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const config = await as(ROOT, llm.getLlmConfig, { method: 'GET', path: '/assistant/v1/llm/config' });
    expect(config.body).toMatchObject({ model: 'gpt-4o', created_by: 'root' });
    expect(config.body.api_key).not.toBe(API_KEY);
    const [decided] = await database.sql.unsafe(`select sealed from ${SCHEMA}.approvals where id = $1`, [asked.body.approvalId]);
    expect(decided.sealed).toBeNull();
    // What the model is called with is the key asked for, decrypted from what the approval stored.
    const { storedModels } = await import('#lib/llm/stored-models');
    const { serviceFrame } = await import('#lib/http/composition');
    const { repository } = await storedModels(await serviceFrame());
    expect((await repository.connection('llm'))?.apiKey).toBe(API_KEY);
  });
});
