import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { governance } from '#lib/governance/composition';
import { logger } from '#lib/logging/logger';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { FakeServer } from '../fakes/fake-server';
import { testDatabase, testSettings } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

const SCHEMA = 'it_environments';
const platform = new FakeServer();
const overrides = () => `
computational-governance-platform.platform-services {
  base-url = "${platform.url}"
  http-secret = "platform-secret-123"
  environments { environments-path = "/api/environments", environments-fetch-retries = 3, static-environments = null }
}
computational-governance-platform.http.client-read-timeout = "300ms"
`;
const ENVIRONMENTS = {
  status: 200,
  body: [
    { name: 'development', region: 'eu' },
    { name: 'production', region: 'eu' },
  ],
};
const busy = { status: 503, body: { error: 'busy' } };

let database: Database;
const start = async () => runStartupTasks(await testSettings(SCHEMA, overrides()));

beforeAll(async () => {
  await platform.start();
  platform.answer(ENVIRONMENTS);
  await useHandlersOn(SCHEMA, overrides());
  database = await testDatabase(SCHEMA);
});

beforeEach(() => {
  platform.reset();
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
  await platform.stop();
});

describe('environments at start', () => {
  it('are pulled with the http-secret, after retrying with growing delays', async () => {
    platform.answer(busy, busy, ENVIRONMENTS);
    const warn = vi.spyOn(logger, 'warn');
    const report = await start();
    const delays = warn.mock.calls
      .filter((call) => call[1] === 'fetching the environments failed; retrying')
      .map((call) => (call[0] as { retryInMs: number }).retryInMs);
    warn.mockRestore();
    expect(report.tasks.environments).toBe('2 from the platform');
    expect(platform.requests).toHaveLength(3);
    expect(platform.requests[0]).toMatchObject({ method: 'GET', path: '/api/environments' });
    expect(platform.requests.every((request) => request.headers.authorization === 'Bearer platform-secret-123')).toBe(true);
    expect(delays).toHaveLength(2);
    expect(delays[1]).toBeGreaterThan(delays[0]);
  });

  it('are listed by the API, with what the platform said', async () => {
    const { listEnvironments } = await import('../../functions/governance/environments');
    const response = await invoke(listEnvironments, { method: 'GET', path: '/v1/computational-governance/environments' });
    expect(response.status).toBe(200);
    expect(response.body.data.map((environment: { name: string }) => environment.name)).toEqual(['development', 'production']);
    expect(response.body.data[0]).toMatchObject({ source: 'platform', details: { name: 'development', region: 'eu' } });
    expect(response.body.meta.pagination).toEqual({ limit: 25, offset: 0, total: 2 });
  });

  it('keep the stored list when the platform never answers, after every retry', async () => {
    platform.answer({ hang: true }, { hang: true }, { hang: true }, { hang: true });
    const report = await start();
    expect(platform.requests).toHaveLength(4);
    expect(report.tasks.environments).toMatch(
      /^fetch failed \(Reading from 127\.0\.0\.1:\d+ timed out after 300 ms \(http\.client-read-timeout\)\); 2 kept from an earlier start$/,
    );
    const { requireKnownEnvironment } = await import('#lib/governance/environments/environment-service');
    await expect(requireKnownEnvironment(await governance(), 'production')).resolves.toBeUndefined();
  });

  it('report a refused secret clearly, without retrying it', async () => {
    platform.answer({ status: 401, body: { error: 'invalid token platform-secret-123' } });
    const error = vi.spyOn(logger, 'error');
    const report = await start();
    const logged = JSON.stringify(error.mock.calls);
    error.mockRestore();
    expect(platform.requests).toHaveLength(1);
    expect(report.tasks.environments).toContain('The platform answered 401');
    expect(report.tasks.environments).not.toContain('platform-secret-123');
    expect(logged).toContain('The platform answered 401');
    expect(logged).not.toContain('platform-secret-123');
  });
});

describe('the environment of a request', () => {
  it('must be a known one (400 naming the field)', async () => {
    const { requireKnownEnvironment } = await import('#lib/governance/environments/environment-service');
    const { InvalidInput } = await import('#lib/errors/domain-errors');
    const { problemOfDomainError } = await import('#lib/http/domain-problems');
    const error = await requireKnownEnvironment(await governance(), 'staging', 'resource.environment').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error).toMatchObject({ errors: [{ path: 'resource.environment', message: 'unknown environment "staging"; known: development, production' }] });
    expect(problemOfDomainError(error)?.status).toBe(400);
  });

  it('cannot be judged (503) when no environment was ever stored', async () => {
    await database.sql.unsafe(`delete from ${SCHEMA}.environments`);
    platform.answer({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    expect((await start()).tasks.environments).toMatch(/0 kept from an earlier start$/);
    const { requireKnownEnvironment } = await import('#lib/governance/environments/environment-service');
    const { Unavailable } = await import('#lib/errors/domain-errors');
    const { problemOfDomainError } = await import('#lib/http/domain-problems');
    const error = await requireKnownEnvironment(await governance(), 'production').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Unavailable);
    expect(error).toMatchObject({ message: expect.stringContaining('No environments are known') });
    expect(problemOfDomainError(error)?.status).toBe(503);
  });

  it('comes from the static list of the settings without asking the platform', async () => {
    const report = await runStartupTasks(
      await testSettings(SCHEMA, `${overrides()}\ncomputational-governance-platform.platform-services.environments.static-environments = [{ name = "local" }]`),
    );
    expect(report.tasks.environments).toBe('1 from the settings');
    expect(platform.requests).toHaveLength(0);
    const { requireKnownEnvironment } = await import('#lib/governance/environments/environment-service');
    await expect(requireKnownEnvironment(await governance(), 'local')).resolves.toBeUndefined();
  });
});
