import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import type { EvaluationReport } from '#lib/governance/evaluation/report';
import type { GovernanceException } from '#lib/governance/exceptions/exception';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as complianceModule from '../../functions/governance/compliance';
import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as exceptionsModule from '../../functions/governance/exceptions';
import type * as metricsModule from '../../functions/governance/metrics';
import type * as policiesModule from '../../functions/governance/policies';
import type * as notifierModule from '../../functions/schedules/exception-expiry-notifier';
import type * as outboxDispatcherModule from '../../functions/schedules/outbox-dispatcher';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

const SCHEMA = 'it_exceptions';
const BASE = '/v1/computational-governance/exceptions';
const DAY_MS = 86_400_000;

/** Fails the descriptors whose owner is `nobody`. */
const engine = new FakeServer((request: RecordedRequest<{ content: string }>) => {
  const failing = request.body.content.includes('owner: nobody');
  // A metric answers a value, and is not satisfied when it has errors.
  if (request.path.startsWith('/metric')) return { status: 200, body: { value: failing ? 0 : 1, errors: failing ? ['owner is missing'] : [] } };
  return { status: 200, body: { satisfiesPolicy: !failing, errors: failing ? ['owner is missing'] : [] } };
});
/** The platform: the audit receiver (base-url) and the notification service. */
const platform = new FakeServer<Record<string, unknown>>(() => ({ status: 202, body: {} }));

let database: Database;
let exceptions: typeof exceptionsModule;
let policies: typeof policiesModule;
let metrics: typeof metricsModule;
let evaluation: typeof evaluationModule;
let compliance: typeof complianceModule;
let notifier: typeof notifierModule;
let outboxDispatcher: typeof outboxDispatcherModule;

const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();

const create = (body: Record<string, unknown>, subject = 'governance-lead') =>
  technicalToken({ sub: subject }).then((token) =>
    invoke(exceptions.createException, { method: 'POST', path: BASE, body, headers: { authorization: `Bearer ${token}` } }),
  );
const list = (query: Record<string, string> = {}) => invoke(exceptions.listExceptions, { method: 'GET', path: BASE, query });
const read = (id: string) => invoke(exceptions.getException, { method: 'GET', path: `${BASE}/${id}`, params: { id } });
const remove = (id: string) => invoke(exceptions.deleteException, { method: 'DELETE', path: `${BASE}/${id}`, params: { id } });
const rows = async () => (await database.sql.unsafe(`select count(*)::int as count from ${SCHEMA}.governance_exceptions`))[0].count as number;
/** Moves an exception's expiry, as the passing of time would: the database's clock judges whether it is active. */
const expireIn = (id: string, interval: string) =>
  database.sql.unsafe(`update ${SCHEMA}.governance_exceptions set expires_at = now() + $2::interval where id = $1`, [id, interval]);

async function enabled(kind: 'policy' | 'metric', changes: Record<string, unknown> = {}) {
  const path = `/v1/computational-governance/${kind === 'policy' ? 'policies' : 'metrics'}`;
  const created = await invoke(kind === 'policy' ? policies.createPolicy : metrics.createMetric, {
    method: 'POST',
    path,
    body: {
      name: `owner set ${Math.random()}`,
      resourceType,
      severity: 'error',
      engine: 'remote',
      remoteEngineUrl: `${engine.url}/${kind}`,
      ...changes,
    },
  });
  expect(created.status).toBe(201);
  const { id } = created.body;
  expect(
    (
      await invoke(kind === 'policy' ? policies.changeStatusOfPolicy : metrics.changeStatusOfMetric, {
        method: 'POST',
        path: `${path}/${id}/status`,
        params: { id },
        body: { status: 'enabled' },
      })
    ).status,
  ).toBe(200);
  return id as string;
}

async function evaluate(id: string, owner: string, environment = 'development'): Promise<EvaluationReport> {
  const response = await invoke(evaluation.evaluate, {
    method: 'POST',
    path: '/v1/computational-governance/evaluate',
    body: { environment, resourceType, descriptor: `id: ${id}\nowner: ${owner}\n` },
    headers: { prefer: 'wait=20' },
  });
  expect(response.status).toBe(200);
  return response.body;
}

const auditRecords = () => platform.requests.filter((request) => request.path === '/api/audit/audit').map((request) => request.body);
const expiryNotices = () => platform.requests.filter((request) => request.path === '/api/notifications' && request.body.event === 'policy-exception-expiring');

async function flushOutbox() {
  await backgroundDispatchSettled();
  await outboxDispatcher.handler();
}

beforeAll(async () => {
  await engine.start();
  await platform.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      platform-services { base-url = "${platform.url}", http-secret = "platform-secret", audit { enabled = true } }
      notification { enabled = true, url = "${platform.url}/api/notifications", secret = "notification-secret" }
      exceptions.max-matched-resources = 2
    }`,
  );
  database = await testDatabase(SCHEMA);
  exceptions = await import('../../functions/governance/exceptions');
  policies = await import('../../functions/governance/policies');
  metrics = await import('../../functions/governance/metrics');
  evaluation = await import('../../functions/governance/evaluation');
  compliance = await import('../../functions/governance/compliance');
  notifier = await import('../../functions/schedules/exception-expiry-notifier');
  outboxDispatcher = await import('../../functions/schedules/outbox-dispatcher');
});

/** Each test evaluates against policies of a type of its own, so that tests do not see each other's policies. */
let resourceType = '';
let types = 0;
beforeEach(async () => {
  await backgroundDispatchSettled();
  resourceType = `dataproduct-${++types}`;
  const registered = await invoke((await import('../../functions/governance/resource-types')).registerResourceType, {
    method: 'POST',
    path: '/v1/computational-governance/resource-types',
    body: { name: resourceType, configuration: { resourceName: 'id' }, resolverConfiguration: { url: engine.url, path: '/resources' } },
  });
  expect(registered.status).toBe(201);
  platform.reset();
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await engine.stop();
  await platform.stop();
});

describe('creating, reading and deleting exceptions', () => {
  it('refuses a bad body with a 400 naming each field, and writes nothing', async () => {
    const policyId = await enabled('policy');
    const valid = { policyId, resourceId: 'urn:dp:sales', reason: 'migration in progress', expiresAt: inDays(30) };
    const refused: [Record<string, unknown>, string, string][] = [
      [{ ...valid, expiresAt: undefined }, 'expiresAt', 'expiresAt'],
      [{ ...valid, expiresAt: '2026-13-40' }, 'expiresAt', 'date and time'],
      [{ ...valid, expiresAt: inDays(-1) }, 'expiresAt', 'in the future'],
      [{ ...valid, expiresAt: inDays(91) }, 'expiresAt', 'at most 90 days ahead'],
      [{ ...valid, policyId: undefined }, 'policyId', 'either policyId or metricId'],
      [{ ...valid, metricId: policyId }, 'policyId', 'either policyId or metricId'],
      [{ ...valid, policyId: 'not-a-uuid' }, 'policyId', 'UUID'],
      [{ ...valid, policyId: '00000000-0000-4000-8000-000000000000' }, 'policyId', 'no policy has the id'],
      [{ ...valid, policyId: undefined, metricId: policyId }, 'metricId', 'no metric has the id'],
      [{ ...valid, resourceId: 'urn:dp:\\' }, 'resourceId', 'lone "\\"'],
      [{ ...valid, resourceId: '  ' }, 'resourceId', 'must not be empty'],
      [{ ...valid, reason: undefined }, 'reason', 'reason'],
      [{ ...valid, environment: 'staging' }, 'environment', 'unknown environment "staging"'],
      [{ ...valid, owner: 'me' }, 'owner', ''],
    ];
    for (const [body, path, message] of refused) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json');
      const field = response.body.errors.find((error: { path: string }) => error.path === path);
      expect(field, JSON.stringify(response.body)).toBeDefined();
      expect(field.message).toContain(message);
    }
    expect(await rows()).toBe(0);
  });

  it('creates (201, Location, createdBy the caller), reads, lists with filters and deletes, each audited', async () => {
    const policyId = await enabled('policy');
    const expiresAt = inDays(30);
    const created = await create({
      policyId,
      resourceId: 'urn:dp:sales-*',
      environment: 'production',
      reason: 'legacy owner field',
      ticket: 'GOV-12',
      expiresAt,
    });
    expect(created.status).toBe(201);
    const exception = created.body as GovernanceException;
    expect(exception).toEqual({
      id: expect.any(String),
      policyId,
      resourceId: 'urn:dp:sales-*',
      environment: 'production',
      reason: 'legacy owner field',
      ticket: 'GOV-12',
      expiresAt: new Date(expiresAt).toISOString(),
      createdBy: 'governance-lead',
      createdAt: expect.any(String),
      requestedBy: 'governance-lead',
      approvedBy: null,
      active: true,
    });
    expect(created.headers.location).toBe(`${BASE}/${exception.id}`);
    expect((await read(exception.id)).body).toEqual(exception);

    const ids = async (query: Record<string, string>) => ((await list(query)).body.data as GovernanceException[]).map((e) => e.id);
    expect(await ids({ policyId })).toEqual([exception.id]);
    expect(await ids({ policyId, resourceId: 'urn:dp:sales-eu' })).toEqual([exception.id]);
    expect(await ids({ policyId, resourceId: 'urn:dp:hr' })).toEqual([]);
    expect(await ids({ policyId, environment: 'production' })).toEqual([exception.id]);
    expect(await ids({ policyId, environment: 'development' })).toEqual([]);
    expect(await ids({ policyId, active: 'true' })).toEqual([exception.id]);
    expect(await ids({ policyId, active: 'false' })).toEqual([]);
    expect((await list({ active: 'maybe' })).body.errors[0].path).toBe('query.active');

    expect((await remove(exception.id)).status).toBe(204);
    expect((await read(exception.id)).status).toBe(404);
    expect((await remove(exception.id)).status).toBe(404);
    await backgroundDispatchSettled();
    // Records are delivered in the background, in no promised order.
    const writes = auditRecords().filter((record) => record.method !== 'GET' && String(record.path).startsWith(BASE));
    const byStatus = writes.sort((a, b) => Number(a.status) - Number(b.status));
    expect(byStatus.map((record) => [record.subject, record.method, record.status, record.location ?? record.path])).toEqual([
      ['governance-lead', 'POST', 201, `${BASE}/${exception.id}`],
      ['test-caller', 'DELETE', 204, `${BASE}/${exception.id}`],
      ['test-caller', 'DELETE', 404, `${BASE}/${exception.id}`],
    ]);
  });
});

describe('how far an exception reaches', () => {
  it('a pattern matching more resources than exceptions.max-matched-resources needs an admin, as wildcards alone do', async () => {
    const policyId = await enabled('policy');
    for (const id of ['urn:dp:m-1', 'urn:dp:m-2', 'urn:dp:m-3']) await evaluate(id, 'alice');
    const author = await technicalToken({ sub: 'an-author', roles: ['author'] });
    const asAuthor = (resourceId: string) =>
      invoke(exceptions.createException, {
        method: 'POST',
        path: BASE,
        body: { policyId, resourceId, reason: 'r', expiresAt: inDays(3) },
        headers: { authorization: `Bearer ${author}` },
      });
    for (const broad of ['urn:dp:m-*', 'u*', '*:*', '*m*']) {
      const refused = await asAuthor(broad);
      expect(refused.status, broad).toBe(403);
      expect(refused.body.permission, broad).toBe('exceptions:waive-all');
    }
    // `?` is one character: all three again. One resource is within the setting, and so is a pattern
    // that matches no resource with a result yet.
    expect((await asAuthor('urn:dp:m-?')).status).toBe(403);
    expect((await asAuthor('urn:dp:m-1')).status).toBe(201);
    expect((await asAuthor('urn:dp:new-*')).status).toBe(201);
    expect((await create({ policyId, resourceId: 'urn:dp:m-*', reason: 'incident', expiresAt: inDays(1) })).status).toBe(201);
  });
});

describe('evaluation under an exception', () => {
  it('waives the failing results of the pairs it matches: waived (errors kept) vs ok vs error, and passed stays true', async () => {
    const policyId = await enabled('policy');
    const other = await enabled('policy', { severity: 'warning' });
    await create({ policyId, resourceId: 'urn:dp:sales-??', reason: 'owner moves to the data team', expiresAt: inDays(10) });

    const waived = await evaluate('urn:dp:sales-eu', 'nobody');
    const mine = waived.evaluationResults.find((result) => result.governanceEntityId === policyId);
    expect(mine?.outcome).toBe('waived');
    expect(mine?.result).toMatchObject({ satisfiesPolicy: false, isError: false, errors: ['owner is missing'] });
    expect(waived.evaluationResults.find((result) => result.governanceEntityId === other)?.outcome).toBe('warning');
    expect(waived).toMatchObject({ outcome: 'warning', passed: true, counts: { total: 2, ok: 0, waived: 1, info: 0, warning: 1, error: 0, failed: 0 } });

    const ok = await evaluate('urn:dp:sales-us', 'alice');
    expect(ok.evaluationResults.find((result) => result.governanceEntityId === policyId)?.outcome).toBe('ok');
    expect(ok.counts).toMatchObject({ ok: 2, waived: 0 });

    // The glob: `??` is two characters, so sales-emea is not matched, nor is another resource.
    for (const id of ['urn:dp:sales-emea', 'urn:dp:hr']) {
      const failing = await evaluate(id, 'nobody');
      expect(failing.evaluationResults.find((result) => result.governanceEntityId === policyId)?.outcome, id).toBe('error');
      expect(failing).toMatchObject({ outcome: 'error', passed: false, counts: { waived: 0, error: 1 } });
    }

    const results = await invoke(evaluation.listResults, {
      method: 'GET',
      path: '/v1/computational-governance/results',
      query: { policyId, outcome: 'waived' },
    });
    expect(results.status).toBe(200);
    expect(results.body.data.map((result: { resource: { id: string } }) => result.resource.id)).toEqual(['urn:dp:sales-eu']);
  });

  it('waives only in its environment, and a metric as well as a policy', async () => {
    const metricId = await enabled('metric');
    await create({ metricId, resourceId: 'urn:dp:finance', environment: 'production', reason: 'audited by hand', expiresAt: inDays(5) });
    const outcome = async (environment: string) =>
      (await evaluate('urn:dp:finance', 'nobody', environment)).evaluationResults.find((result) => result.governanceEntityId === metricId)?.outcome;
    expect(await outcome('production')).toBe('waived');
    expect(await outcome('development')).toBe('error');
  });

  it('after it expires (time moved in the database), the next evaluation judges normally; the results before stay waived', async () => {
    const policyId = await enabled('policy');
    const { body: exception } = await create({ policyId, resourceId: 'urn:dp:expiring', reason: 'until the fix ships', expiresAt: inDays(3) });
    const outcome = async () => (await evaluate('urn:dp:expiring', 'nobody')).evaluationResults.find((r) => r.governanceEntityId === policyId)?.outcome;
    expect(await outcome()).toBe('waived');
    await expireIn(exception.id, '-1 second');
    expect((await read(exception.id)).body.active).toBe(false);
    expect(((await list({ policyId, active: 'false' })).body.data as GovernanceException[]).map((e) => e.id)).toEqual([exception.id]);
    expect(await outcome()).toBe('error');
    const history = await invoke(evaluation.listResults, { method: 'GET', path: '/v1/computational-governance/results', query: { policyId } });
    expect(history.body.data.map((result: { outcome: string }) => result.outcome)).toEqual(['error', 'waived']);
  });

  it('a passive result pushed for a waived pair is waived', async () => {
    const created = await invoke(policies.createPolicy, {
      method: 'POST',
      path: '/v1/computational-governance/policies',
      body: { name: `scanner ${Math.random()}`, resourceType, trigger: 'passive' },
    });
    const { id } = created.body;
    await invoke(policies.publishPolicy, { method: 'POST', path: `/v1/computational-governance/policies/${id}/publish`, params: { id } });
    await create({ policyId: id, resourceId: 'urn:dp:*', reason: 'scanner rules under review', expiresAt: inDays(1) });
    const push = (resource: string, satisfiesPolicy: boolean) =>
      invoke(policies.recordPassiveResult, {
        method: 'POST',
        path: `/v1/computational-governance/policies/${id}/results`,
        params: { id },
        body: { environment: 'qa', resource: { id: resource }, satisfiesPolicy, errors: satisfiesPolicy ? [] : ['no data contract'] },
      });
    expect((await push('urn:dp:orders', false)).body).toMatchObject({ outcome: 'waived', result: { errors: ['no data contract'] } });
    expect((await push('urn:dp:orders', true)).body.outcome).toBe('ok');
    expect((await push('urn:other:orders', false)).body.outcome).toBe('error');
  });

  it('the compliance summary counts a waived result as passing, apart', async () => {
    const policyId = await enabled('policy');
    await create({ policyId, resourceId: 'urn:dp:summary-*', reason: 'accepted risk', expiresAt: inDays(2) });
    await evaluate('urn:dp:summary-a', 'nobody', 'qa');
    await evaluate('urn:other:summary-b', 'nobody', 'qa');
    await evaluate('urn:dp:summary-c', 'alice', 'qa');
    const summary = await invoke(compliance.getComplianceSummary, {
      method: 'GET',
      path: '/v1/computational-governance/compliance/summary',
      query: { policyId },
    });
    expect(summary.status).toBe(200);
    expect(summary.body.resources).toEqual({
      total: 3,
      passing: 2,
      failing: 1,
      byWorstOutcome: { ok: 1, waived: 1, info: 0, warning: 0, error: 1, failed: 0 },
    });
    expect(summary.body.outcomes).toEqual({ total: 3, ok: 1, waived: 1, info: 0, warning: 0, error: 1, failed: 0 });
    const trend = await invoke(compliance.getComplianceTrend, {
      method: 'GET',
      path: '/v1/computational-governance/compliance/trend',
      query: { days: '1', resourceType },
    });
    expect(trend.body.days[0].resources).toEqual(summary.body.resources);
    const latest = await invoke(evaluation.listResults, {
      method: 'GET',
      path: '/v1/computational-governance/results',
      query: { policyId, latest: 'true', outcome: 'waived' },
    });
    expect(latest.body.data.map((result: { resource: { id: string } }) => result.resource.id)).toEqual(['urn:dp:summary-a']);
  });
});

describe('the notice before expiry', () => {
  it('notifies once per exception that expires within a week, through the outbox', async () => {
    await database.sql.unsafe(`update ${SCHEMA}.governance_exceptions set expiry_notice_at = now()`);
    const policyId = await enabled('policy', { name: 'Owner is set' });
    const { body: soon } = await create({
      policyId,
      resourceId: 'urn:dp:soon',
      environment: 'qa',
      reason: 'waiting on the owner',
      ticket: 'GOV-7',
      expiresAt: inDays(30),
    });
    const { body: later } = await create({ policyId, resourceId: 'urn:dp:later', reason: 'long migration', expiresAt: inDays(30) });
    await expireIn(soon.id, '6 days');
    await expireIn(later.id, '8 days');

    expect(await notifier.handler()).toBe(1);
    await flushOutbox();
    expect(expiryNotices()).toHaveLength(1);
    const [notice] = expiryNotices();
    expect(notice.headers.authorization).toBe('Bearer notification-secret');
    expect(notice.body).toMatchObject({
      event: 'policy-exception-expiring',
      entity: { id: policyId, name: 'Owner is set', type: 'policy' },
      message: expect.stringContaining('urn:dp:soon in qa expires at'),
      exception: { id: soon.id, resourceId: 'urn:dp:soon', environment: 'qa', reason: 'waiting on the owner', ticket: 'GOV-7', expiresAt: expect.any(String) },
    });

    // Once: a second run announces nothing more; the other one is announced when its week begins.
    expect(await notifier.handler()).toBe(0);
    await expireIn(later.id, '2 days');
    expect(await notifier.handler()).toBe(1);
    await flushOutbox();
    expect(expiryNotices().map((request) => (request.body.exception as { id: string }).id)).toEqual([soon.id, later.id]);
    // An expired exception is not announced.
    const { body: gone } = await create({ policyId, resourceId: 'urn:dp:gone', reason: 'r', expiresAt: inDays(30) });
    await expireIn(gone.id, '-1 hour');
    expect(await notifier.handler()).toBe(0);
  });

  it('deleting a policy deletes its exceptions', async () => {
    const policyId = await enabled('policy');
    await create({ policyId, resourceId: 'urn:dp:x', reason: 'r', expiresAt: inDays(1) });
    const path = `/v1/computational-governance/policies/${policyId}`;
    await invoke(policies.changeStatusOfPolicy, { method: 'POST', path: `${path}/status`, params: { id: policyId }, body: { status: 'disabled' } });
    expect((await invoke(policies.deletePolicy, { method: 'DELETE', path, params: { id: policyId } })).status).toBe(204);
    expect((await list({ policyId })).body.meta.pagination.total).toBe(0);
  });
});
