import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { closeReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';

import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as policiesModule from '../../functions/governance/policies';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

const SCHEMA = 'it_cue_disagreements';
const PATH = '/v1/computational-governance/cue-disagreements';

let policies: typeof policiesModule;
let evaluation: typeof evaluationModule;

async function enabledCuePolicy(cueScript: string): Promise<{ id: string; evaluator: string }> {
  const created = await invoke(policies.createPolicy, {
    method: 'POST',
    path: '/v1/computational-governance/policies',
    body: { name: 'p', resourceType: 'dataproduct', severity: 'error', engine: 'cue', cueScript },
  });
  expect(created.status).toBe(201);
  const { id } = created.body;
  expect(
    (
      await invoke(policies.changeStatusOfPolicy, {
        method: 'POST',
        path: `/v1/computational-governance/policies/${id}/status`,
        params: { id },
        body: { status: 'enabled' },
      })
    ).status,
  ).toBe(200);
  return created.body;
}

const evaluate = (descriptor: Record<string, unknown>) =>
  invoke(evaluation.evaluate, {
    method: 'POST',
    path: '/v1/computational-governance/evaluate',
    body: { environment: 'development', resourceType: 'dataproduct', descriptor },
    headers: { prefer: 'wait=30' },
  });

const disagreements = (query: Record<string, string> = {}) => invoke(evaluation.listCueDisagreements, { method: 'GET', path: PATH, query });

beforeAll(async () => {
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      cue-config.evaluator = shadow
      resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]
    }`,
  );
  policies = await import('../../functions/governance/policies');
  evaluation = await import('../../functions/governance/evaluation');
});

afterAll(async () => {
  await closeReferenceEvaluator();
  await releaseHandlers();
});

describe('shadow evaluation (cue-config.evaluator = shadow)', () => {
  it('answers with the WebAssembly verdict, records each disagreement, and lists them newest first', async () => {
    // A required field: the native evaluator has it; CUE v0.4 in WebAssembly cannot even parse it.
    const required = await enabledCuePolicy('name!: string\n');
    const agreed = await enabledCuePolicy('owner?: string\n');
    expect(required.evaluator).toBe('native');

    const first = await evaluate({ id: 'orders', owner: 'alice' });
    expect(first.status).toBe(200);
    const report = first.body;
    const verdictOf = (policyId: string) => report.evaluationResults.find((result: { governanceEntityId: string }) => result.governanceEntityId === policyId);
    // The WebAssembly verdict is the one recorded: it cannot judge the script.
    expect(verdictOf(required.id)).toMatchObject({ outcome: 'failed', result: { satisfiesPolicy: false, isError: true } });
    expect(verdictOf(agreed.id)).toMatchObject({ outcome: 'ok' });
    const second = await evaluate({ id: 'invoices', name: 'Invoices' });
    expect(second.status).toBe(200);

    const listed = await disagreements();
    expect(listed.status).toBe(200);
    expect(listed.body.meta.pagination).toEqual({ limit: 25, offset: 0, total: 2 });
    const [newest, older] = listed.body.data;
    expect(newest).toMatchObject({
      policyId: required.id,
      policyVersion: 1,
      kind: 'policy',
      resourceId: 'invoices',
      environment: 'development',
      reportId: second.body.id,
    });
    expect(newest.native).toEqual({ satisfiesPolicy: true, isError: false, errors: [] });
    expect(older).toMatchObject({
      resourceId: 'orders',
      reportId: report.id,
      native: { satisfiesPolicy: false, isError: false, errors: [expect.stringMatching(/^name: field is required but not present/)] },
    });
    expect(older.wasm).toEqual(verdictOf(required.id).result);
    expect(newest.id).toBeGreaterThan(older.id);
    expect(Date.parse(newest.createdAt)).not.toBeNaN();
  });

  it('filters by policy and pages like the other lists', async () => {
    const { body: all } = await disagreements();
    const policyId = all.data[0].policyId;
    const page = await disagreements({ policyId, limit: '1', offset: '1' });
    expect(page.body.meta.pagination).toEqual({ limit: 1, offset: 1, total: all.meta.pagination.total });
    expect(page.body.data).toEqual([all.data[1]]);
    expect((await disagreements({ policyId: crypto.randomUUID() })).body).toMatchObject({ data: [], meta: { pagination: { total: 0 } } });
    const bad = await disagreements({ policyId: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'query.policyId', message: 'policyId must be a UUID' }]);
  });

  it('is not readable without credentials', async () => {
    expect((await invoke(evaluation.listCueDisagreements, { method: 'GET', path: PATH, headers: { authorization: '' } })).status).toBe(401);
  });
});
