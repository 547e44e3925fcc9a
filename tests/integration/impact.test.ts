import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';
import { resetSettings } from '#lib/settings/shared-settings';

import type * as impactModule from '../../functions/governance/impact-reports';
import type * as metricsModule from '../../functions/governance/metrics';
import type * as policiesModule from '../../functions/governance/policies';
import type * as evaluationWorkerModule from '../../functions/workers/evaluation-worker';
import { FakeServer } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

// Impact reports (lib/governance/impact): a candidate version judged on the real perimeter through
// the queue, compared resource by resource with the live version's newest result; nothing recorded.

const SCHEMA = 'it_impact';
const TYPE = 'sized';
const POLICIES = '/v1/computational-governance/policies';

/** Resources per environment: dp-n has size 10 x n, owned by team-a (odd n) or team-b (even n). */
const perimeter: Record<string, { id: string; displayName: string; version: string; content: string }[]> = {};
const resource = (n: number) => ({
  id: `dp-${n}`,
  displayName: `dp ${n}`,
  version: '1',
  content: `id: dp-${n}\nowner: team-${n % 2 ? 'a' : 'b'}\nsize: ${10 * n}\n`,
});
const resolver = new FakeServer((request) => {
  const { environment, offset, limit } = request.query;
  const all = perimeter[environment] ?? [];
  return {
    status: 200,
    body: { resources: all.slice(Number(offset), Number(offset) + Number(limit)), page: { offset: Number(offset), limit: Number(limit), total: all.length } },
  };
});
const lambda = new FakeServer<SQSEvent>(() => ({ status: 202 }));
/** The platform's notification receiver. */
const notifications = new FakeServer<Record<string, unknown>>(() => ({ status: 202 }));

let database: Database;
let policies: typeof policiesModule;
let metrics: typeof metricsModule;
let impact: typeof impactModule;
let worker: typeof evaluationWorkerModule;
let delivered = 0;
const context = { getRemainingTimeInMillis: () => 900_000 } as unknown as Context;

/** Delivers every message the local queue sent so far (and those their runs send) to the worker. */
async function deliverAll() {
  while (delivered < lambda.requests.length) expect(await worker.handler(lambda.requests[delivered++].body, context)).toEqual({ batchItemFailures: [] });
}

const cue = (max: number) => ({
  name: 'size is bounded',
  resourceType: TYPE,
  environment: null,
  severity: 'error',
  engine: 'cue',
  cueScript: `size: <=${max}`,
});
const startImpact = (id: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  invoke(policies.impactOfPolicy, { method: 'POST', path: `${POLICIES}/${id}/impact`, params: { id }, body, headers });
const readImpact = (id: string) => invoke(impact.getImpactReport, { method: 'GET', path: `/v1/computational-governance/impact-reports/${id}`, params: { id } });
const resources = (id: string, query: Record<string, string>) =>
  invoke(impact.listImpactResources, { method: 'GET', path: `/v1/computational-governance/impact-reports/${id}/resources`, params: { id }, query });
/** What the history and the live policy hold: an impact run must change none of it. */
const recorded = async (policyId: string) => ({
  history: (await database.sql.unsafe(`select count(*)::int as n from ${SCHEMA}.evaluation_results where recorded and entity_id = $1`, [policyId]))[0].n,
  latest: await database.sql.unsafe(`select resource_id, environment, outcome, result_id from ${SCHEMA}.latest_results where entity_id = $1 order by 1, 2`, [
    policyId,
  ]),
  versions: await database.sql.unsafe(`select version, status from ${SCHEMA}.governance_entities where id = $1 order by version`, [policyId]),
});

let policyId: string;

beforeAll(async () => {
  await resolver.start();
  await lambda.start();
  await notifications.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.notification { enabled = true, url = "${notifications.url}/notify", secret = "notify-secret" }
    computational-governance-platform.resource-types = [
      { name = "${TYPE}", configuration { resource-name = "id", resource-owner-field = "owner", batch-size = 4 }, resolver-configuration { url = "${resolver.url}", path = "/resources" } }
    ]`,
  );
  vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', lambda.url);
  vi.stubEnv('EVALUATION_WORKER_FUNCTION', 'cgp-impact-evaluation-worker');
  resetSettings();
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  impact = await import('../../functions/governance/impact-reports');
  metrics = await import('../../functions/governance/metrics');
  worker = await import('../../functions/workers/evaluation-worker');

  // v1 (size <= 80), live: dp-9 and dp-10 fail it in development; production holds dp-1 and dp-2.
  perimeter.development = Array.from({ length: 10 }, (_, i) => resource(i + 1));
  perimeter.production = [resource(1), resource(2)];
  const created = await invoke(policies.createPolicy, { method: 'POST', path: POLICIES, body: cue(80) });
  expect(created.status).toBe(201);
  policyId = created.body.id;
  const published = await invoke(policies.publishPolicy, { method: 'POST', path: `${POLICIES}/${policyId}/publish`, params: { id: policyId } });
  expect(published.status).toBe(200);
  await deliverAll();
  // A resource deployed since: the live version never judged it.
  perimeter.development.push(resource(11));
});

afterAll(async () => {
  await releaseHandlers();
  resetSettings();
  await database.close();
  await resolver.stop();
  await lambda.stop();
  await notifications.stop();
});

describe('impact reports', () => {
  it('a stricter version finds exactly the resources it newly fails, by environment and owner; nothing recorded changes', async () => {
    const updated = await invoke(policies.updatePolicy, { method: 'PUT', path: `${POLICIES}/${policyId}`, params: { id: policyId }, body: cue(50) });
    expect(updated.status).toBe(201);
    const before = await recorded(policyId);

    const started = await startImpact(policyId);
    expect(started.status).toBe(202);
    const { impactReportId } = started.body;
    expect(started.headers.location).toBe(`/v1/computational-governance/impact-reports/${impactReportId}`);
    const pending = await readImpact(impactReportId);
    expect(pending.body).toMatchObject({
      status: 'pending',
      candidateVersion: 2,
      baselineVersion: 1,
      counts: null,
      environments: ['development', 'production', 'qa'],
    });
    // Its resources are listed once it completed.
    expect((await resources(impactReportId, {})).status).toBe(409);

    await deliverAll();
    const report = await readImpact(impactReportId);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      status: 'completed',
      kind: 'policy',
      policyId,
      candidateVersion: 2,
      baselineVersion: 1,
      error: null,
      // dp-6..8 newly fail (60..80 > 50), dp-9 and dp-10 still fail, dp-1..5 still pass (dp-1, dp-2 in production too), dp-11 was never judged.
      counts: { newlyFailing: 3, newlyPassing: 0, stillFailing: 2, stillPassing: 7, notEvaluated: 1 },
      byEnvironment: [
        { environment: 'development', newlyFailing: 3, newlyPassing: 0, stillFailing: 2, stillPassing: 5, notEvaluated: 1 },
        { environment: 'production', newlyFailing: 0, newlyPassing: 0, stillFailing: 0, stillPassing: 2, notEvaluated: 0 },
      ],
      byOwner: [
        { owner: 'team-b', newlyFailing: 2, newlyPassing: 0, stillFailing: 1, stillPassing: 3, notEvaluated: 0 },
        { owner: 'team-a', newlyFailing: 1, newlyPassing: 0, stillFailing: 1, stillPassing: 4, notEvaluated: 1 },
      ],
    });

    const newlyFailing = await resources(impactReportId, { change: 'newlyFailing' });
    expect(newlyFailing.body.data).toEqual(
      [6, 7, 8].map((n) => ({
        environment: 'development',
        resourceId: `dp-${n}`,
        owner: `team-${n % 2 ? 'a' : 'b'}`,
        change: 'newlyFailing',
        candidateOutcome: 'error',
        baselineOutcome: 'ok',
        errors: [expect.stringContaining('size')],
        candidateValue: null,
        baselineValue: null,
        candidateThreshold: null,
        baselineThreshold: null,
      })),
    );
    expect(newlyFailing.body.meta).toEqual({ limit: 100, next: null });

    // Nothing of the history, the latest results or the live policy moved.
    expect(await recorded(policyId)).toEqual(before);
    expect(before.versions).toEqual([
      { version: 1, status: 'enabled' },
      { version: 2, status: 'draft' },
    ]);
  });

  it('pages the resources in environment and id order, with a Link to the next', async () => {
    const { impactReportId } = (await startImpact(policyId)).body;
    await deliverAll();
    const first = await resources(impactReportId, { limit: '5' });
    expect(first.body.data.map((row: { environment: string; resourceId: string }) => `${row.environment}/${row.resourceId}`)).toEqual([
      'development/dp-1',
      'development/dp-10',
      'development/dp-11',
      'development/dp-2',
      'development/dp-3',
    ]);
    expect(first.headers.link).toBe(
      `</v1/computational-governance/impact-reports/${impactReportId}/resources?limit=5&after=${first.body.meta.next}>; rel="next"`,
    );
    const rest = [];
    for (let after = first.body.meta.next; after;) {
      const page = await resources(impactReportId, { limit: '5', after });
      rest.push(...page.body.data);
      after = page.body.meta.next;
    }
    expect(first.body.data.length + rest.length).toBe(13);
    expect((await resources(impactReportId, { after: 'not-a-cursor' })).body).toMatchObject({ status: 400, errors: [{ path: 'query.after' }] });
  });

  it('a looser version finds the resources it newly passes, in the environments asked', async () => {
    await invoke(policies.updatePolicy, { method: 'PUT', path: `${POLICIES}/${policyId}`, params: { id: policyId }, body: cue(95) });
    const { impactReportId } = (await startImpact(policyId, { environments: ['development'] })).body;
    await deliverAll();
    const report = (await readImpact(impactReportId)).body;
    expect(report).toMatchObject({
      environments: ['development'],
      counts: { newlyFailing: 0, newlyPassing: 1, stillFailing: 1, stillPassing: 8, notEvaluated: 1 },
    });
    expect((await resources(impactReportId, { change: 'newlyPassing' })).body.data).toEqual([
      expect.objectContaining({ resourceId: 'dp-9', candidateOutcome: 'ok', baselineOutcome: 'error', errors: [] }),
    ]);
  });

  it('refuses what it cannot weigh, naming the field', async () => {
    expect((await startImpact(policyId, { environments: ['nowhere'] })).body).toMatchObject({ status: 400, errors: [{ path: 'environments.0' }] });
    expect((await startImpact(policyId, { version: 'two' })).body).toMatchObject({ status: 400, errors: [{ path: 'version' }] });
    expect((await startImpact(policyId, { version: 99 })).status).toBe(404);
    expect((await readImpact('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await resources(policyId, { change: 'sideways' })).body).toMatchObject({ status: 400, errors: [{ path: 'query.change' }] });
  });
});

describe('impact of a metric, on thresholds', () => {
  const METRICS = '/v1/computational-governance/metrics';
  const metric = (thresholds: { label: string; color: string; min?: number; max?: number }[]) => ({
    name: 'size',
    resourceType: TYPE,
    environment: 'production',
    severity: 'warning',
    engine: 'cue',
    cueScript: 'size: number\nvalue: size\n',
    thresholds,
  });

  it('counts the resources moving from one threshold to another, and pages them', async () => {
    // v1 live: small up to 15 (dp-1, size 10), large above (dp-2, size 20). v2 moves the line to 25.
    const created = await invoke(metrics.createMetric, {
      method: 'POST',
      path: METRICS,
      body: metric([
        { label: 'small', color: 'green', max: 15 },
        { label: 'large', color: 'red', min: 15 },
      ]),
    });
    expect(created.status).toBe(201);
    const metricId = created.body.id;
    expect((await invoke(metrics.publishMetric, { method: 'POST', path: `${METRICS}/${metricId}/publish`, params: { id: metricId } })).status).toBe(200);
    await deliverAll();
    const updated = await invoke(metrics.updateMetric, {
      method: 'PUT',
      path: `${METRICS}/${metricId}`,
      params: { id: metricId },
      body: metric([
        { label: 'small', color: 'green', max: 25 },
        { label: 'large', color: 'red', min: 25 },
      ]),
    });
    expect(updated.status).toBe(201);

    const started = await invoke(metrics.impactOfMetric, { method: 'POST', path: `${METRICS}/${metricId}/impact`, params: { id: metricId }, body: {} });
    expect(started.status).toBe(202);
    await deliverAll();
    const report = (await readImpact(started.body.impactReportId)).body;
    expect(report).toMatchObject({
      status: 'completed',
      kind: 'metric',
      candidateVersion: 2,
      baselineVersion: 1,
      environments: ['production'],
      // Both still produce a number: no verdict changes, one resource changes threshold.
      counts: { newlyFailing: 0, newlyPassing: 0, stillFailing: 0, stillPassing: 2, notEvaluated: 0 },
      byThreshold: [
        { baselineThreshold: 'large', candidateThreshold: 'small', count: 1 },
        { baselineThreshold: 'small', candidateThreshold: 'small', count: 1 },
      ],
    });
    const moved = await resources(started.body.impactReportId, { thresholdChanged: 'true' });
    expect(moved.body.data).toEqual([
      {
        environment: 'production',
        resourceId: 'dp-2',
        owner: 'team-b',
        change: 'stillPassing',
        candidateOutcome: 'ok',
        baselineOutcome: 'ok',
        errors: [],
        candidateValue: 20,
        baselineValue: 20,
        candidateThreshold: 'small',
        baselineThreshold: 'large',
      },
    ]);
    expect((await resources(started.body.impactReportId, { thresholdChanged: 'maybe' })).body).toMatchObject({
      status: 400,
      errors: [{ path: 'query.thresholdChanged' }],
    });
    // A policy's report has no thresholds, and its resources no numbers.
    const { impactReportId } = (await startImpact(policyId)).body;
    await deliverAll();
    expect((await readImpact(impactReportId)).body.byThreshold).toEqual([]);
    expect((await resources(impactReportId, { limit: '1' })).body.data[0]).toMatchObject({ candidateValue: null, candidateThreshold: null });
  });
});

describe('owners told', () => {
  it('a published version that newly fails resources tells each owner once, listing theirs', async () => {
    // The draft (v2) becomes size <= 30: against live v1 (<= 80), dp-4..dp-8 newly fail in development.
    await invoke(policies.updatePolicy, { method: 'PUT', path: `${POLICIES}/${policyId}`, params: { id: policyId }, body: cue(30) });
    const published = await invoke(policies.publishPolicy, { method: 'POST', path: `${POLICIES}/${policyId}/publish`, params: { id: policyId } });
    expect(published.status).toBe(200);
    await deliverAll();
    // Delivered in the background once the report ended (whatever it had not sent yet, by the dispatcher).
    await backgroundDispatchSettled();
    await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where delivered_at is null`);
    const { handler: dispatch } = await import('../../functions/schedules/outbox-dispatcher');
    await dispatch();
    const notices = notifications.requests.map((request) => request.body).filter((body) => body.event === 'resource-newly-failing');
    const listed = (owner: string) => notices.find((notice) => notice.owner === owner);
    expect(notices).toHaveLength(2);
    expect(listed('team-a')).toMatchObject({
      entity: { id: policyId, name: 'size is bounded', type: 'policy' },
      message: 'The policy "size is bounded" version 2, just published, newly fails 2 resources of team-a',
      newlyFailing: 2,
      version: 2,
      reportId: published.body.evaluationReportId,
      resources: [
        { environment: 'development', resourceId: 'dp-5', errors: [expect.stringContaining('size')] },
        { environment: 'development', resourceId: 'dp-7', errors: [expect.stringContaining('size')] },
      ],
    });
    expect((listed('team-b')?.resources as { resourceId: string }[]).map((resource) => resource.resourceId)).toEqual(['dp-4', 'dp-6', 'dp-8']);
  });
});
