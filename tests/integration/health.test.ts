import { afterEach, describe, expect, inject, it, vi } from 'vitest';

import { freePort } from '../../scripts/free-port';
import { apiGatewayEvent, lambdaContext } from '../support/api-gateway-event';
import { APPLICATION_CONF } from '../support/settings-files';

async function health(databaseUrl: string) {
  vi.resetModules();
  vi.stubEnv('CGP_CONFIG_FILE', APPLICATION_CONF);
  vi.stubEnv('DATABASE_URL', databaseUrl);
  const { getHealth } = await import('../../functions/service/health');
  const response = await getHealth(apiGatewayEvent({ method: 'GET', path: '/health' }), lambdaContext());
  const { closeSharedDatabase } = await import('#lib/db/shared-database');
  await closeSharedDatabase();
  return { status: response.statusCode, body: JSON.parse(response.body ?? 'null') };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('GET /health', () => {
  it('is 200 with the database ok', async () => {
    expect(await health(inject('databaseUrl'))).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
  });

  it('is 503 when the database is unreachable', async () => {
    const nobodyListens = `postgresql://postgres:postgres@127.0.0.1:${await freePort()}/none`;
    expect(await health(nobodyListens)).toEqual({ status: 503, body: { status: 'unavailable', database: 'unreachable' } });
  });
});
