import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { governance } from '#lib/governance/composition';
import { runAbandonedReports } from '#lib/governance/evaluation/evaluation-runner';

import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as policiesModule from '../../functions/governance/policies';
import { FakeServer } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

// Runs in the process of a call (Evaluate, policy tests) end: at evaluation.run-timeout, or when the
// function running them is about to stop. Their outbound calls are cut and nothing half-done is written.

const SCHEMA = 'it_evaluation_stops';

/** A remote engine that answers /ok at once and leaves /hang unanswered (until the caller gives up). */
const engine = new FakeServer((request) => (request.path.startsWith('/hang') ? { hang: true } : { status: 200, body: { satisfiesPolicy: true, errors: [] } }));

let database: Database;
let policies: typeof policiesModule;
let evaluation: typeof evaluationModule;

const report = async (id: string) =>
  (await database.sql.unsafe(`select status, error, lease_until <= now() as released from ${SCHEMA}.evaluation_reports where id = '${id}'`))[0];
const resultCount = async (id: string) =>
  (await database.sql.unsafe(`select count(*)::int as count from ${SCHEMA}.evaluation_results where report_id = '${id}'`))[0].count;

async function enabledPolicy(resourceType: string, path: string) {
  const created = await invoke(policies.createPolicy, {
    method: 'POST',
    path: '/v1/computational-governance/policies',
    body: { name: `engine ${path}`, resourceType, severity: 'error', engine: 'remote', remoteEngineUrl: `${engine.url}${path}` },
  });
  expect(created.status).toBe(201);
  for (const status of ['grace', 'enabled'])
    await invoke(policies.changeStatusOfPolicy, {
      method: 'POST',
      path: `/v1/computational-governance/policies/${created.body.id}/status`,
      params: { id: created.body.id },
      body: { status },
    });
}

const evaluate = (resourceType: string, id: string, remainingMs?: number) =>
  invoke(
    evaluation.evaluate,
    {
      method: 'POST',
      path: '/v1/computational-governance/evaluate',
      body: { environment: 'development', resourceType, descriptor: { id } },
      headers: { prefer: 'wait=20' },
    },
    remainingMs,
  );

beforeAll(async () => {
  await engine.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      # Far longer than the run may take: what stops a hanging engine here is the run's end, not the read timeout.
      http { client-read-timeout = "60 seconds" }
      evaluation.run-timeout = "1 second"
      resource-types = [
        { name = "slow", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } },
        { name = "stopped", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } }
      ]
    }`,
  );
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  evaluation = await import('../../functions/governance/evaluation');
  await enabledPolicy('slow', '/hang');
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
  await engine.stop();
});

describe('an evaluation run in the process of a call', () => {
  it('that outlasts evaluation.run-timeout fails naming the setting; its engine call is cut and no result is written', async () => {
    const response = await evaluate('slow', 'dp-slow');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', error: 'the evaluation did not finish within 1 s (evaluation.run-timeout)' });
    expect(await resultCount(response.body.id)).toBe(0);
    // The engine saw the call, and its connection closed by the caller.
    await expect.poll(() => engine.abandoned.map((request) => request.path)).toEqual(['/hang/v1/evaluate']);
  });

  it('whose function is about to stop gives its report back: the sweeper runs it again to the end', async () => {
    await enabledPolicy('stopped', '/hang-then-ok');
    engine.reset();
    // 1.5 s left: the function answers 504 a second before its end, and the run stops with it.
    const response = await evaluate('stopped', 'dp-stopped', 1_500);
    expect(response.status).toBe(504);
    const [{ id }] = await database.sql.unsafe(`select id from ${SCHEMA}.evaluation_reports where resource_type = 'stopped'`);
    await expect.poll(() => report(id)).toEqual({ status: 'running', error: null, released: true });
    expect(await resultCount(id)).toBe(0);
    await expect.poll(() => engine.abandoned.length).toBe(1);

    // The engine answers now (its URL no longer hangs); the sweeper takes the report over.
    await database.sql.unsafe(
      `update ${SCHEMA}.governance_entities set remote_engine_url = '${engine.url}/ok' where remote_engine_url = '${engine.url}/hang-then-ok'`,
    );
    await runAbandonedReports(await governance());
    expect(await report(id)).toMatchObject({ status: 'completed' });
    expect(await resultCount(id)).toBe(1);
  });
});
