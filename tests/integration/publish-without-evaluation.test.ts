import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { resetSettings } from '#lib/settings/shared-settings';

import { FakeServer } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

const SCHEMA = 'it_publish_without_evaluation';
const lambda = new FakeServer(() => ({ status: 202 }));
let database: Database;

beforeAll(async () => {
  await lambda.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      evaluation.enable-on-publish = false
      resource-types = [ { name = "dataproduct", resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]
    }`,
  );
  vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', lambda.url);
  resetSettings();
  database = await testDatabase(SCHEMA);
});

afterAll(async () => {
  await releaseHandlers();
  resetSettings();
  await database.close();
  await lambda.stop();
});

describe('evaluation.enable-on-publish = false', () => {
  it('publishing enables the policy and enqueues nothing', async () => {
    const policies = await import('../../functions/governance/policies');
    const created = await invoke(policies.createPolicy, {
      method: 'POST',
      path: '/v1/computational-governance/policies',
      body: { name: 'p', resourceType: 'dataproduct', severity: 'error', engine: 'remote', remoteEngineUrl: 'http://127.0.0.1:9/check' },
    });
    const { id } = created.body;
    const published = await invoke(policies.publishPolicy, { method: 'POST', path: `/v1/computational-governance/policies/${id}/publish`, params: { id } });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ status: 'enabled', evaluationReportId: null });
    expect(lambda.requests).toHaveLength(0);
    expect(await database.sql.unsafe(`select count(*)::int as n from "${SCHEMA}".evaluation_reports`)).toEqual([{ n: 0 }]);
    expect(await database.sql.unsafe(`select count(*)::int as n from "${SCHEMA}".evaluation_tasks`)).toEqual([{ n: 0 }]);
  });
});
