import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';

import type * as policiesModule from '../../functions/governance/policies';
import type * as schedulerModule from '../../functions/schedules/rollout-scheduler';
import { FakeServer } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

// Dated rollouts (lib/governance/rollouts): a version in grace moves to enabled at its date, through
// the lifecycle service, by the rollout scheduler. Dates are moved in the database: no sleeping.

const SCHEMA = 'it_rollouts';
const POLICIES = '/v1/computational-governance/policies';
const DAY_MS = 86_400_000;

/** The platform's notification receiver. */
const notifications = new FakeServer<Record<string, unknown>>(() => ({ status: 202 }));
let database: Database;
let policies: typeof policiesModule;
let scheduler: typeof schedulerModule;

const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
const schedule = (id: string, body: Record<string, unknown>) =>
  invoke(policies.scheduleRolloutOfPolicy, { method: 'POST', path: `${POLICIES}/${id}/rollout`, params: { id }, body });
const rollout = (id: string) => invoke(policies.getRolloutOfPolicy, { method: 'GET', path: `${POLICIES}/${id}/rollout`, params: { id } });
const cancel = (id: string) => invoke(policies.cancelRolloutOfPolicy, { method: 'DELETE', path: `${POLICIES}/${id}/rollout`, params: { id } });
const move = (id: string, status: string) =>
  invoke(policies.changeStatusOfPolicy, { method: 'POST', path: `${POLICIES}/${id}/status`, params: { id }, body: { status } });
const statuses = async (id: string) =>
  (await database.sql.unsafe(`select version, status from ${SCHEMA}.governance_entities where id = $1 order by version`, [id])).map(
    (row) => `${row.version}:${row.status}`,
  );
const due = (id: string) => database.sql.unsafe(`update ${SCHEMA}.rollouts set enable_at = now() - interval '1 second' where entity_id = $1`, [id]);

let count = 0;
async function policyIn(status: 'draft' | 'grace'): Promise<string> {
  const created = await invoke(policies.createPolicy, {
    method: 'POST',
    path: POLICIES,
    body: { name: `rolled out ${++count}`, resourceType: 'dataproduct', engine: 'cue', cueScript: 'owner: string' },
  });
  expect(created.status).toBe(201);
  if (status === 'grace') expect((await move(created.body.id, 'grace')).status).toBe(200);
  return created.body.id;
}

beforeAll(async () => {
  await notifications.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.notification { enabled = true, url = "${notifications.url}/notify", secret = "notify-secret" }
    computational-governance-platform.resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]`,
  );
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  scheduler = await import('../../functions/schedules/rollout-scheduler');
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
  await notifications.stop();
});

describe('a dated rollout', () => {
  it('enables the version in grace at its date, not before; one at a time', async () => {
    const id = await policyIn('grace');
    const enableAt = inDays(14);
    const scheduled = await schedule(id, { enableAt });
    expect(scheduled.status).toBe(201);
    expect(scheduled.body).toMatchObject({ kind: 'policy', policyId: id, version: 1, enableAt, notifyDaysBefore: 7, status: 'scheduled', approvedBy: null });
    expect((await rollout(id)).body).toEqual(scheduled.body);
    expect((await schedule(id, { enableAt: inDays(20) })).status).toBe(409);

    expect(await scheduler.handler()).toEqual({ noticed: 0, enabled: 0, failed: 0 });
    expect(await statuses(id)).toEqual(['1:grace']);

    await due(id);
    expect(await scheduler.handler()).toEqual({ noticed: 0, enabled: 1, failed: 0 });
    expect(await statuses(id)).toEqual(['1:enabled']);
    expect((await rollout(id)).body).toMatchObject({ status: 'done', endedBy: 'rollout-scheduler', endedAt: expect.any(String) });
    // Done once: the next run finds nothing.
    expect(await scheduler.handler()).toEqual({ noticed: 0, enabled: 0, failed: 0 });
  });

  it('cancelled, it moves nothing; then another can be scheduled', async () => {
    const id = await policyIn('grace');
    expect((await schedule(id, { enableAt: inDays(3), notifyDaysBefore: 1 })).status).toBe(201);
    const cancelled = await cancel(id);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', notifyDaysBefore: 1 });
    await due(id);
    expect(await scheduler.handler()).toEqual({ noticed: 0, enabled: 0, failed: 0 });
    expect(await statuses(id)).toEqual(['1:grace']);
    expect((await cancel(id)).status).toBe(404);
    expect((await schedule(id, { enableAt: inDays(4) })).status).toBe(201);
  });

  it('whose version left grace meanwhile (enabled by hand) fails with the reason, and moves nothing', async () => {
    const id = await policyIn('grace');
    expect((await schedule(id, { enableAt: inDays(1) })).status).toBe(201);
    expect((await move(id, 'enabled')).status).toBe(200);
    await due(id);
    expect(await scheduler.handler()).toEqual({ noticed: 0, enabled: 0, failed: 1 });
    expect(await statuses(id)).toEqual(['1:enabled']);
    expect((await rollout(id)).body).toMatchObject({ status: 'failed', error: expect.stringContaining('cannot move to enabled') });
  });

  it('refuses what it cannot schedule, naming the field', async () => {
    const draft = await policyIn('draft');
    expect((await schedule(draft, { enableAt: inDays(1) })).status).toBe(409);
    const id = await policyIn('grace');
    expect((await schedule(id, { enableAt: inDays(-1) })).body).toMatchObject({ status: 400, errors: [{ path: 'enableAt' }] });
    expect((await schedule(id, { enableAt: 'tomorrow' })).body).toMatchObject({ status: 400, errors: [{ path: 'enableAt' }] });
    expect((await schedule(id, { enableAt: inDays(1), notifyDaysBefore: -1 })).body).toMatchObject({ status: 400, errors: [{ path: 'notifyDaysBefore' }] });
    expect((await rollout(id)).status).toBe(404);
    expect((await rollout('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('tells the owners of the resources failing its version, notifyDaysBefore ahead of its date, once each', async () => {
    const id = await policyIn('grace');
    // The grace version's newest results: dp-a1 fails (a warning, in grace), dp-a2 passes (team-a); dp-b1 fails (team-b).
    for (const [resource, owner, outcome] of [
      ['dp-a1', 'team-a', 'warning'],
      ['dp-a2', 'team-a', 'ok'],
      ['dp-b1', 'team-b', 'warning'],
    ])
      await database.sql.unsafe(
        `insert into ${SCHEMA}.evaluation_results (recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome, resource_id, resource_owner, environment, resource_type, result)
         values (true, $1, 1, 'policy', 'grace', 'error', $2, $3, $4, 'production', 'dataproduct', $5)`,
        [
          id,
          outcome,
          resource,
          owner,
          JSON.stringify({ satisfiesPolicy: outcome === 'ok', isError: false, errors: outcome === 'ok' ? [] : ['owner: conflicting values'] }),
        ],
      );
    expect((await schedule(id, { enableAt: inDays(10), notifyDaysBefore: 7 })).status).toBe(201);
    expect(await scheduler.handler()).toEqual({ noticed: 0, enabled: 0, failed: 0 });

    // Six days before its date (moved in the database): the notice is due.
    await database.sql.unsafe(`update ${SCHEMA}.rollouts set enable_at = now() + interval '6 days' where entity_id = $1`, [id]);
    notifications.reset();
    expect(await scheduler.handler()).toEqual({ noticed: 2, enabled: 0, failed: 0 });
    expect(await scheduler.handler()).toEqual({ noticed: 0, enabled: 0, failed: 0 });
    const { backgroundDispatchSettled } = await import('#lib/outbox/background-dispatch');
    await backgroundDispatchSettled();
    const notices = notifications.requests.map((request) => request.body).filter((body) => body.event === 'policy-rollout-notice');
    expect(notices.map((notice) => [notice.owner, (notice.resources as { resourceId: string }[]).map((resource) => resource.resourceId)])).toEqual([
      ['team-a', ['dp-a1']],
      ['team-b', ['dp-b1']],
    ]);
    expect(notices[0]).toMatchObject({
      entity: { id, type: 'policy' },
      failing: 1,
      rolloutId: (await rollout(id)).body.id,
      message: expect.stringContaining('is enabled at'),
    });
  });
});
