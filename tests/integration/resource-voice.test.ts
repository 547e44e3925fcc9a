import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Role } from '#lib/authorization/roles';
import type { Database } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as policiesModule from '../../functions/governance/policies';
import { FakePlatformAuth } from '../fakes/platform-auth';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

/**
 * Who may speak for a resource (issue 44, item 4; docs/authorization.md): anyone who may evaluate
 * gets an answer, but only the platform's service accounts, an evaluator bound to the resource's type
 * or environment, and an admin make it the resource's state. Everyone else's Evaluate is a dry run,
 * and their passive results are refused.
 */

const SCHEMA = 'it_resource_voice';
const API = '/v1/computational-governance';
const RESOURCE = 'urn:dp:orders';

const platform = new FakePlatformAuth();
let database: Database;
let policies: typeof policiesModule;
let evaluation: typeof evaluationModule;

type Caller = { sub: string; roles?: Role[] } | 'platform';
const ANY_CI: Caller = { sub: 'any-ci', roles: ['reader', 'evaluator'] };
/** Bound in the settings below. */
const ORDERS_CI: Caller = { sub: 'orders-ci' };
const DEV_CI: Caller = { sub: 'dev-ci' };
const ADMIN: Caller = { sub: 'root', roles: ['admin'] };

async function as(caller: Caller, handler: Parameters<typeof invoke>[0], request: Omit<Parameters<typeof invoke>[1], 'headers'>) {
  const token =
    caller === 'platform'
      ? await platform.sign('k1', { sub: 'platform-provisioner', roles: ['evaluator'] })
      : await technicalToken({ sub: caller.sub, roles: caller.roles ?? [] });
  return invoke(handler, { ...request, headers: { authorization: `Bearer ${token}`, prefer: 'wait=20' } });
}

const evaluate = (caller: Caller, owner: string | undefined, environment = 'production') =>
  as(caller, evaluation.evaluate, {
    method: 'POST',
    path: `${API}/evaluate`,
    body: { resourceType: 'dataproduct', environment, descriptor: JSON.stringify({ id: RESOURCE, ...(owner ? { owner } : {}) }) },
  });

/** The outcomes of the resource's newest results, as the results list and the compliance summary read them. */
async function state() {
  const latest = await as(ADMIN, evaluation.listResults, { method: 'GET', path: `${API}/results`, query: { resourceId: RESOURCE, latest: 'true' } });
  expect(latest.status).toBe(200);
  const stored = await database.sql.unsafe(`select outcome from ${SCHEMA}.latest_results where resource_id = $1`, [RESOURCE]);
  return { latest: latest.body.data.map((result: { outcome: string }) => result.outcome), summary: stored.map((row) => row.outcome) };
}

let passiveId: string;

beforeAll(async () => {
  await platform.start();
  await platform.addKey('k1', 'RS256');
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      platform-services.base-url = "${platform.url}"
      authorization.bindings = [
        { subjects = ["orders-ci"], roles = [evaluator], resource-types = ["dataproduct"] }
        { subjects = ["dev-ci"], roles = [evaluator], environments = ["development"] }
      ]
    }`,
  );
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  evaluation = await import('../../functions/governance/evaluation');
  const { registerResourceType } = await import('../../functions/governance/resource-types');
  const registered = await as(ADMIN, registerResourceType, {
    method: 'POST',
    path: `${API}/resource-types`,
    body: { name: 'dataproduct', configuration: { resourceName: 'id' }, resolverConfiguration: { url: 'http://127.0.0.1:9', path: '/resources' } },
  });
  expect(registered.status).toBe(201);
  const active = async (body: Record<string, unknown>) => {
    const created = await as(ADMIN, policies.createPolicy, { method: 'POST', path: `${API}/policies`, body: { resourceType: 'dataproduct', ...body } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const published = await as(ADMIN, policies.publishPolicy, { method: 'POST', path: `${API}/policies/${id}/publish`, params: { id } });
    expect(published.status, JSON.stringify(published.body)).toBeLessThan(300);
    return id;
  };
  await active({ name: 'owner set', engine: 'cue', cueScript: 'owner: string' });
  passiveId = await active({ name: 'checked outside', trigger: 'passive' });
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await platform.stop();
});

describe('who may speak for a resource', () => {
  it("the platform's service account records; an unscoped evaluator gets its answer as a dry run that changes nothing, and the audit trail names its report", async () => {
    const failing = await evaluate('platform', undefined);
    expect(failing.status, JSON.stringify(failing.body)).toBe(200);
    expect(failing.body).toMatchObject({ passed: false, dryRun: false });
    expect(await state()).toEqual({ latest: ['error'], summary: ['error'] });

    const forged = await evaluate(ANY_CI, 'someone');
    expect(forged.status).toBe(200);
    expect(forged.body).toMatchObject({ passed: true, dryRun: true, cause: 'evaluate', createdBy: 'any-ci' });
    expect(forged.body.evaluationResults).toHaveLength(1);
    expect(forged.headers?.['content-location']).toBe(`${API}/evaluation-reports/${forged.body.id}`);
    // Its report is still there to poll, as the peer platform's evaluate-then-poll does.
    const polled = await as(ANY_CI, evaluation.getEvaluationReport, {
      method: 'GET',
      path: `${API}/evaluation-reports/${forged.body.id}`,
      params: { id: forged.body.id },
    });
    expect(polled.body).toMatchObject({ status: 'completed', passed: true, dryRun: true });
    expect(await state()).toEqual({ latest: ['error'], summary: ['error'] });

    await backgroundDispatchSettled();
    const [audited] = await database.sql.unsafe(
      `select record from ${SCHEMA}.audit_records where record->>'operationId' = 'evaluate' and record->>'subject' = 'any-ci' order by seq desc limit 1`,
    );
    expect(audited?.record).toMatchObject({ status: 200, location: `${API}/evaluation-reports/${forged.body.id}` });
  });

  it('an evaluator bound to the resource type records; one bound to another environment may not evaluate there; an admin records', async () => {
    const scoped = await evaluate(ORDERS_CI, 'orders-team');
    expect(scoped.body).toMatchObject({ passed: true, dryRun: false });
    expect(await state()).toEqual({ latest: ['ok'], summary: ['ok'] });

    expect((await evaluate(DEV_CI, undefined)).status).toBe(403);

    const admin = await evaluate(ADMIN, undefined);
    expect(admin.body).toMatchObject({ passed: false, dryRun: false });
    expect(await state()).toEqual({ latest: ['error'], summary: ['error'] });
  });

  it('a caller who may speak for the resource asks for a dry run (dryRun: true): answered, never its state', async () => {
    const checked = await as(ORDERS_CI, evaluation.evaluate, {
      method: 'POST',
      path: `${API}/evaluate`,
      body: { resourceType: 'dataproduct', environment: 'production', descriptor: JSON.stringify({ id: RESOURCE, owner: 'orders-team' }), dryRun: true },
    });
    expect(checked.status, JSON.stringify(checked.body)).toBe(200);
    expect(checked.body).toMatchObject({ passed: true, dryRun: true });
    expect(await state()).toEqual({ latest: ['error'], summary: ['error'] });
    const wrong = await as(ORDERS_CI, evaluation.evaluate, {
      method: 'POST',
      path: `${API}/evaluate`,
      body: { resourceType: 'dataproduct', environment: 'production', descriptor: '{}', dryRun: 'yes' },
    });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toMatch(/dryRun/);
  });

  it('passive results: refused (403) to an unscoped evaluator, recorded for an evaluator bound to the environment', async () => {
    const push = (caller: Caller, environment: string) =>
      as(caller, policies.recordPassiveResult, {
        method: 'POST',
        path: `${API}/policies/${passiveId}/results`,
        params: { id: passiveId },
        body: { environment, resource: { id: 'urn:dp:billing' }, satisfiesPolicy: true },
      });
    const refused = await push(ANY_CI, 'development');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/speak for a resource/);
    expect(await database.sql.unsafe(`select 1 from ${SCHEMA}.evaluation_results where resource_id = 'urn:dp:billing'`)).toHaveLength(0);
    expect((await push(DEV_CI, 'development')).status).toBe(201);
    expect(await database.sql.unsafe(`select 1 from ${SCHEMA}.evaluation_results where resource_id = 'urn:dp:billing' and recorded`)).toHaveLength(1);
  });
});
