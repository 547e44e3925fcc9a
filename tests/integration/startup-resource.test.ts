import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';

import { openDatabase } from '#lib/db/client';
import { resetSettings } from '#lib/settings/shared-settings';

import { FakeServer } from '../fakes/fake-server';
import { testSettings } from '../support/database';
import { testSettingsFile } from '../support/settings-files';

/**
 * The startup function as the DatabaseSchema custom resource (serverless.yml): CloudFormation sends it
 * Create and Update on a deploy and Delete on removal, and waits for its answer at the response URL (here
 * a fake that records it, as S3's presigned URL would).
 */

const SCHEMA = 'it_startup_resource';
const cloudFormation = new FakeServer(() => ({ status: 200 }));

const event = (requestType: 'Create' | 'Update' | 'Delete') => ({
  RequestType: requestType,
  ResponseURL: `${cloudFormation.url}/cloudformation-response?X-Amz-Signature=abc`,
  StackId: 'arn:aws:cloudformation:eu-west-1:000000000000:stack/cgp-preprod-eu/1',
  RequestId: `request-${requestType}`,
  LogicalResourceId: 'DatabaseSchema',
  ResourceType: 'Custom::DatabaseSchema',
  ResourceProperties: { ServiceToken: 'arn:aws:lambda:eu-west-1:000000000000:function:startup', StartupCodeSha256: 'abc' },
  ...(requestType === 'Create' ? {} : { PhysicalResourceId: 'DatabaseSchema' }),
});

/** The handler, loaded afresh on settings that point at `databaseUrl` (as a new Lambda container would). */
async function startupOn(databaseUrl: string) {
  vi.stubEnv('CGP_CONFIG_FILE', testSettingsFile(`computational-governance-platform.database.schema = "${SCHEMA}"`));
  vi.stubEnv('DATABASE_URL', databaseUrl);
  resetSettings();
  return (await import('../../functions/service/startup')).handler;
}

async function tablesOfSchema(): Promise<number> {
  const database = openDatabase(await testSettings(SCHEMA));
  try {
    const [{ count }] = await database.sql<{ count: number }[]>`select count(*)::int as count from information_schema.tables where table_schema = ${SCHEMA}`;
    return count;
  } finally {
    await database.close();
  }
}

beforeAll(async () => {
  await cloudFormation.start();
  const database = openDatabase(await testSettings(SCHEMA));
  await database.sql.unsafe(`drop schema if exists "${SCHEMA}" cascade`);
  await database.close();
});

afterEach(() => {
  cloudFormation.reset();
  vi.unstubAllEnvs();
  resetSettings();
});

afterAll(() => cloudFormation.stop());

describe('the DatabaseSchema custom resource', () => {
  it('on Create, migrates the schema and answers SUCCESS with the start-up report, by a PUT without a content type', async () => {
    const handler = await startupOn(inject('databaseUrl'));
    await handler(event('Create'));
    expect(await tablesOfSchema()).toBeGreaterThan(20);
    expect(cloudFormation.requests).toHaveLength(1);
    const [answer] = cloudFormation.requests;
    expect(answer).toMatchObject({ method: 'PUT', path: '/cloudformation-response' });
    expect(answer.headers['content-type'] ?? '').toBe('');
    expect(answer.body).toMatchObject({
      Status: 'SUCCESS',
      PhysicalResourceId: 'DatabaseSchema',
      StackId: 'arn:aws:cloudformation:eu-west-1:000000000000:stack/cgp-preprod-eu/1',
      RequestId: 'request-Create',
      LogicalResourceId: 'DatabaseSchema',
      Data: { migrations: expect.stringMatching(/^\d+ applied$/) },
    });
  });

  it('on Update, runs again (nothing left to apply) and keeps the same physical id', async () => {
    const handler = await startupOn(inject('databaseUrl'));
    await handler(event('Update'));
    expect(cloudFormation.requests[0].body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'DatabaseSchema', Data: { migrations: '0 applied' } });
  });

  it('answers FAILED with the reason (never a secret of the settings) when the tasks fail, which fails the deploy', async () => {
    const handler = await startupOn('postgres://cgp:s3cret-database-password@127.0.0.1:9/governance');
    await handler(event('Update'));
    const [answer] = cloudFormation.requests;
    expect(answer.body).toMatchObject({ Status: 'FAILED', RequestId: 'request-Update', Reason: expect.any(String) });
    expect(JSON.stringify(answer.body)).not.toContain('s3cret-database-password');
  });

  it('on Delete (the stack removed), answers SUCCESS and leaves the schema and its data', async () => {
    const handler = await startupOn('postgres://cgp:s3cret-database-password@127.0.0.1:9/governance');
    await handler(event('Delete'));
    expect(cloudFormation.requests[0].body).toMatchObject({ Status: 'SUCCESS', RequestId: 'request-Delete' });
    expect(await tablesOfSchema()).toBeGreaterThan(20);
  });

  it('tells CloudFormation again when its response URL fails for a moment', async () => {
    cloudFormation.answer({ status: 503 });
    const handler = await startupOn('postgres://cgp:s3cret-database-password@127.0.0.1:9/governance');
    await handler(event('Delete'));
    expect(cloudFormation.requests.map((request) => request.body)).toEqual([
      expect.objectContaining({ Status: 'SUCCESS' }),
      expect.objectContaining({ Status: 'SUCCESS' }),
    ]);
  });
});
