import { randomUUID } from 'node:crypto';

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { getComplianceTrend, recordComplianceDays } from '#lib/governance/compliance/compliance-service';
import { governance } from '#lib/governance/composition';
import { type NewResult, ResultRepository } from '#lib/governance/evaluation/result-repository';

import type * as complianceModule from '../../functions/governance/compliance';
import type * as evaluationModule from '../../functions/governance/evaluation';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

const SCHEMA = 'it_compliance';
const API = '/v1/computational-governance';

let database: Database;
let compliance: typeof complianceModule;
let evaluation: typeof evaluationModule;

type Status = 'enabled' | 'grace' | 'disabled';
type Severity = 'info' | 'warning' | 'error';
type Outcome = NewResult['outcome'];

/** The entities of the scenario: A, Beta, Grace, Info and Metric count; Disabled and a deleted one do not. */
const A = randomUUID();
const BETA = randomUUID();
const GRACE = randomUUID();
const DISABLED = randomUUID();
const INFO = randomUUID();
const METRIC = randomUUID();
const DELETED = randomUUID();

async function entity(id: string, name: string, status: Status, severity: Severity, kind: 'policy' | 'metric' = 'policy', resourceType = 'dataproduct') {
  await database.db.insert(database.tables.governanceEntities).values({
    id,
    version: 1,
    kind,
    latest: true,
    name,
    resourceType,
    severity,
    engine: 'cue',
    cueScript: 'x: 1',
    trigger: 'active',
    timing: 'deployment',
    strategy: 'default',
    status,
    createdBy: 'test',
    updatedBy: 'test',
  });
}

const result = (entityId: string, resourceId: string, environment: string, outcome: Outcome, resourceType = 'dataproduct'): NewResult => ({
  reportId: null,
  recorded: true,
  entityId,
  entityVersion: 1,
  entityKind: resourceType === 'dataproduct' ? 'policy' : 'metric',
  entityStatus: 'enabled',
  severity: 'error',
  outcome,
  resourceId,
  resourceDisplayName: null,
  resourceVersion: null,
  environment,
  resourceType,
  result: { satisfiesPolicy: outcome === 'ok', isError: outcome === 'failed', errors: [] },
  value: null,
});

/** Writes the results of one day through the repository (as evaluations do), then dates them to that day. */
async function day(date: string, results: NewResult[]) {
  const t = database.tables.evaluationResults;
  const [{ last }] = await database.db.execute<{ last: number | null }>(sql`select max(id) as last from ${t}`);
  await new ResultRepository(database).append(results);
  await database.db.execute(sql`update ${t} set created_at = ${`${date}T10:00:00Z`}::timestamptz where id > ${last ?? 0}`);
}

const summary = (query: Record<string, string> = {}) => invoke(compliance.getComplianceSummary, { method: 'GET', path: `${API}/compliance/summary`, query });
const trend = (query: Record<string, string> = {}) => invoke(compliance.getComplianceTrend, { method: 'GET', path: `${API}/compliance/trend`, query });

/** ResourceCounts from counts by worst outcome. */
const resources = (counts: Partial<Record<Outcome, number>>) => {
  const byWorstOutcome = { ok: 0, waived: 0, info: 0, warning: 0, error: 0, failed: 0, ...counts };
  const total = Object.values(byWorstOutcome).reduce((sum, n) => sum + n, 0);
  const failing = byWorstOutcome.error + byWorstOutcome.failed;
  return { total, passing: total - failing, failing, byWorstOutcome };
};

const NOW = new Date('2026-11-05T12:00:00Z');

beforeAll(async () => {
  await useHandlersOn(SCHEMA);
  database = await testDatabase(SCHEMA);
  compliance = await import('../../functions/governance/compliance');
  evaluation = await import('../../functions/governance/evaluation');
});

afterAll(async () => {
  await database.close();
  await releaseHandlers();
});

describe('compliance of an empty database', () => {
  it('counts nothing, and every day of the trend is zero', async () => {
    const answer = await summary();
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      resources: resources({}),
      outcomes: { total: 0, ok: 0, waived: 0, info: 0, warning: 0, error: 0, failed: 0 },
      byEnvironment: [],
      byResourceType: [],
      byEnvironmentAndResourceType: [],
      topFailingPolicies: [],
    });
    expect(await recordComplianceDays(database, NOW)).toBe(0);
    const days = await getComplianceTrend(await governance(), { days: 3 }, NOW);
    expect(days).toEqual({
      from: '2026-11-03',
      to: '2026-11-05',
      days: ['2026-11-03', '2026-11-04', '2026-11-05'].map((date) => ({ date, resources: resources({}) })),
    });
  });
});

describe('compliance over the newest result of each (policy, resource, environment)', () => {
  beforeAll(async () => {
    await entity(A, 'Alpha', 'enabled', 'error');
    await entity(BETA, 'Beta', 'enabled', 'warning');
    await entity(GRACE, 'Grace', 'grace', 'error');
    await entity(DISABLED, 'Disabled', 'disabled', 'error');
    await entity(INFO, 'Info', 'enabled', 'info');
    await entity(METRIC, 'Metric', 'enabled', 'error', 'metric', 'outputport');
    // DELETED has results but no entity any more.
    await day('2026-11-01', [
      result(A, 'r2', 'production', 'ok'),
      result(A, 'r7', 'production', 'error'),
      // Written while Grace was enabled: an error then, a warning now that it is in grace.
      result(GRACE, 'r3', 'production', 'error'),
    ]);
    await day('2026-11-02', [
      result(A, 'r1', 'production', 'ok'),
      result(BETA, 'r1', 'production', 'ok'),
      result(A, 'r2', 'production', 'error'),
      result(BETA, 'r2', 'production', 'warning'),
      result(A, 'r3', 'production', 'ok'),
      result(DISABLED, 'r4', 'development', 'error'),
      result(A, 'r4', 'development', 'ok'),
      result(DELETED, 'r5', 'development', 'error'),
    ]);
    await day('2026-11-03', [
      result(A, 'r6', 'development', 'failed'),
      result(INFO, 'r6', 'development', 'info'),
      result(A, 'r7', 'production', 'ok'),
      result(METRIC, 'o1', 'production', 'error', 'outputport'),
    ]);
  });

  it('judges each resource by its counted results: failing when one is error or failed', async () => {
    const answer = await summary();
    expect(answer.status).toBe(200);
    // r1 ok; r2 error (Alpha fails, Beta passes); r3 warning (Grace); r4 ok (Disabled not counted); r5 only
    // a deleted policy's result (not a resource here); r6 failed; r7 ok (its newest result); o1 error.
    expect(answer.body.resources).toEqual(resources({ ok: 3, warning: 1, error: 2, failed: 1 }));
    expect(answer.body.outcomes).toEqual({ total: 11, ok: 5, waived: 0, info: 1, warning: 2, error: 2, failed: 1 });
    expect(answer.body.byEnvironment).toEqual([
      { environment: 'development', resources: resources({ ok: 1, failed: 1 }) },
      { environment: 'production', resources: resources({ ok: 2, warning: 1, error: 2 }) },
    ]);
    expect(answer.body.byResourceType).toEqual([
      { resourceType: 'dataproduct', resources: resources({ ok: 3, warning: 1, error: 1, failed: 1 }) },
      { resourceType: 'outputport', resources: resources({ error: 1 }) },
    ]);
    expect(answer.body.byEnvironmentAndResourceType).toEqual([
      { environment: 'development', resourceType: 'dataproduct', resources: resources({ ok: 1, failed: 1 }) },
      { environment: 'production', resourceType: 'dataproduct', resources: resources({ ok: 2, warning: 1, error: 1 }) },
      { environment: 'production', resourceType: 'outputport', resources: resources({ error: 1 }) },
    ]);
    expect(answer.body.topFailingPolicies).toEqual([
      {
        id: A,
        name: 'Alpha',
        kind: 'policy',
        version: 1,
        status: 'enabled',
        severity: 'error',
        resourceType: 'dataproduct',
        outcomes: { total: 6, ok: 4, waived: 0, info: 0, warning: 0, error: 1, failed: 1 },
      },
      expect.objectContaining({
        id: METRIC,
        kind: 'metric',
        resourceType: 'outputport',
        outcomes: { total: 1, ok: 0, waived: 0, info: 0, warning: 0, error: 1, failed: 0 },
      }),
      expect.objectContaining({ id: BETA, outcomes: { total: 2, ok: 1, waived: 0, info: 0, warning: 1, error: 0, failed: 0 } }),
      expect.objectContaining({ id: GRACE, status: 'grace', outcomes: { total: 1, ok: 0, waived: 0, info: 0, warning: 1, error: 0, failed: 0 } }),
      expect.objectContaining({ id: INFO, outcomes: { total: 1, ok: 0, waived: 0, info: 1, warning: 0, error: 0, failed: 0 } }),
    ]);
    expect(Date.parse(answer.body.computedAt)).not.toBeNaN();
  });

  it('filters by environment, resource type and policy, and lists the top N policies', async () => {
    const development = await summary({ environment: 'development' });
    expect(development.body.resources).toEqual(resources({ ok: 1, failed: 1 }));
    expect(development.body.outcomes).toEqual({ total: 3, ok: 1, waived: 0, info: 1, warning: 0, error: 0, failed: 1 });
    expect((await summary({ resourceType: 'outputport' })).body.resources).toEqual(resources({ error: 1 }));
    // By Alpha's results alone: r1, r3, r4, r7 pass; r2 and r6 fail.
    const alpha = await summary({ policyId: A });
    expect(alpha.body.resources).toEqual(resources({ ok: 4, error: 1, failed: 1 }));
    expect(alpha.body.topFailingPolicies.map((policy: { id: string }) => policy.id)).toEqual([A]);
    expect((await summary({ policyId: DISABLED })).body.resources).toEqual(resources({}));
    expect((await summary({ top: '2' })).body.topFailingPolicies.map((policy: { id: string }) => policy.id)).toEqual([A, METRIC]);
  });

  it('judges with the status the policy has now: a grace policy enabled again turns its warnings into errors', async () => {
    const entities = database.tables.governanceEntities;
    await database.db.execute(sql`update ${entities} set status = 'enabled' where id = ${GRACE}`);
    try {
      expect((await summary()).body.resources).toEqual(resources({ ok: 3, error: 3, failed: 1 }));
    } finally {
      await database.db.execute(sql`update ${entities} set status = 'grace' where id = ${GRACE}`);
    }
  });

  it('records each past day from the history, once, and answers the trend per day with today live', async () => {
    const before = await getComplianceTrend(await governance(), { from: '2026-10-31', to: '2026-11-05' }, NOW);
    // Before any day is recorded: the day before the first result is empty, the others unknown, today live.
    expect(before.days.map((entry) => entry.resources && entry.resources.total)).toEqual([0, null, null, null, null, 7]);

    expect(await recordComplianceDays(database, NOW)).toBe(4);
    expect(await recordComplianceDays(database, NOW)).toBe(0);

    const after = await getComplianceTrend(await governance(), { from: '2026-10-31', to: '2026-11-05' }, NOW);
    expect(after).toEqual({
      from: '2026-10-31',
      to: '2026-11-05',
      days: [
        { date: '2026-10-31', resources: resources({}) },
        // r2 ok, r7 error, r3 warning (Grace, in grace now).
        { date: '2026-11-01', resources: resources({ ok: 1, warning: 1, error: 1 }) },
        // + r1 ok, r4 ok; r2 now error; r7 still error.
        { date: '2026-11-02', resources: resources({ ok: 2, warning: 1, error: 2 }) },
        { date: '2026-11-03', resources: resources({ ok: 3, warning: 1, error: 2, failed: 1 }) },
        { date: '2026-11-04', resources: resources({ ok: 3, warning: 1, error: 2, failed: 1 }) },
        // Today: the summary's numbers.
        { date: '2026-11-05', resources: resources({ ok: 3, warning: 1, error: 2, failed: 1 }) },
      ],
    });
    const production = await getComplianceTrend(await governance(), { environment: 'production', from: '2026-11-02', to: '2026-11-03' }, NOW);
    expect(production.days).toEqual([
      { date: '2026-11-02', resources: resources({ ok: 1, warning: 1, error: 2 }) },
      { date: '2026-11-03', resources: resources({ ok: 2, warning: 1, error: 2 }) },
    ]);
    const outputports = await getComplianceTrend(await governance(), { resourceType: 'outputport', days: 4 }, NOW);
    expect(outputports.days.map((entry) => entry.resources?.failing)).toEqual([0, 1, 1, 1]);
  });

  it('a newer result of a pair replaces it: a passive result, or a re-evaluation', async () => {
    await new ResultRepository(database).add(result(A, 'r6', 'development', 'ok'));
    expect((await summary({ environment: 'development' })).body.resources).toEqual(resources({ ok: 1, info: 1 }));
    await new ResultRepository(database).append([result(A, 'r6', 'development', 'failed')]);
    expect((await summary({ environment: 'development' })).body.resources).toEqual(resources({ ok: 1, failed: 1 }));
  });

  it('the results endpoint lists the latest result of every resource, by environment, type and outcome, paged', async () => {
    const list = (query: Record<string, string>) =>
      invoke(evaluation.listResults, { method: 'GET', path: `${API}/results`, query: { latest: 'true', ...query } });
    const outputport = await list({ resourceType: 'outputport' });
    expect(outputport.body.data.map((r: { governanceEntityId: string; resource: { id: string } }) => [r.governanceEntityId, r.resource.id])).toEqual([
      [METRIC, 'o1'],
    ]);
    const failed = await list({ environment: 'development', outcome: 'failed' });
    expect(failed.body.data.map((r: { resource: { id: string } }) => r.resource.id)).toEqual(['r6']);
    // Every pair's newest result (Disabled's and the deleted policy's included: this is the history), newest first.
    const page = await list({ limit: '5', offset: '10' });
    expect(page.body.meta.pagination).toEqual({ limit: 5, offset: 10, total: 13 });
    expect(page.body.data.map((r: { resource: { id: string } }) => r.resource.id)).toEqual(['r1', 'r1', 'r3']);
    const history = await invoke(evaluation.listResults, { method: 'GET', path: `${API}/results`, query: { resourceType: 'outputport' } });
    expect(history.body.meta.pagination.total).toBe(1);
  });
});

describe('compliance filters', () => {
  it.each([
    [{ top: '0' }, 'top'],
    [{ top: 'many' }, 'top'],
    [{ policyId: 'nope' }, 'policyId'],
    [{ resourceType: 'a b' }, 'resourceType'],
    [{ environment: '' }, 'environment'],
  ])('summary %j is a 400 naming %s', async (query, field) => {
    const answer = await summary(query);
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(answer.body.errors.map((error: { path: string }) => error.path)).toEqual([`query.${field}`]);
  });

  it.each([
    [{ days: '0' }, 'days'],
    [{ days: '367' }, 'days'],
    [{ days: '7', from: '2026-11-01' }, 'days'],
    [{ from: '2026-13-01' }, 'from'],
    [{ from: '2026-02-30' }, 'from'],
    [{ to: '2999-01-01' }, 'to'],
    [{ from: '2026-11-02', to: '2026-11-01' }, 'from'],
    [{ from: '2024-01-01', to: '2026-11-01' }, 'from'],
  ])('trend %j is a 400 naming %s', async (query, field) => {
    const answer = await trend(query);
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((error: { path: string }) => error.path)).toEqual([`query.${field}`]);
  });

  it('the trend answers the last N days up to today (UTC) by default 30', async () => {
    const answer = await trend();
    expect(answer.status).toBe(200);
    expect(answer.body.days).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(answer.body.to).toBe(today);
    expect(answer.body.days.at(-1)).toEqual({ date: today, resources: expect.objectContaining({ total: 7 }) });
    expect((await trend({ days: '1' })).body.days).toHaveLength(1);
  });

  it('needs credentials', async () => {
    const answer = await invoke(compliance.getComplianceSummary, {
      method: 'GET',
      path: `${API}/compliance/summary`,
      headers: { authorization: 'Bearer nope' },
    });
    expect(answer.status).toBe(401);
  });
});
