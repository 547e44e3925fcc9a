import { afterEach, describe, expect, it, vi } from 'vitest';

import { loadSettings, parseDuration, SettingsError } from '#lib/settings/index';

import { APPLICATION_CONF, MINIMAL, writeSettingsFile } from '../support/settings-files';

const ROOT = 'computational-governance-platform';
const load = (...lines: string[]) => loadSettings(writeSettingsFile([MINIMAL, ...lines].join('\n')), {});

async function problemsOf(text: string): Promise<string[]> {
  const error = await loadSettings(writeSettingsFile(text), {}).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SettingsError);
  return (error as SettingsError).problems;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('durations', () => {
  it.each([
    ['10 seconds', 10_000],
    ['10s', 10_000],
    ['2 minutes', 120_000],
    ['2m', 120_000],
    ['1 hour', 3_600_000],
    ['500ms', 500],
    ['500 millis', 500],
    ['1d', 86_400_000],
    ['0', 0],
    [0, 0],
    [250, 250],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'ten seconds', '10 fortnights', '-5s', '5 s s'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('keeps 0 (no timeout) for the http timeouts', async () => {
    const settings = await load(`${ROOT}.http { client-connect-timeout = 0, client-read-timeout = "0 seconds" }`);
    expect(settings.http).toMatchObject({ clientConnectTimeout: 0, clientReadTimeout: 0 });
  });
});

describe('the settings file', () => {
  it('ships a valid application.conf that npm start can use as is', async () => {
    const settings = await loadSettings(APPLICATION_CONF, {});
    expect(settings.database.schema).toBe('cgp');
    expect(settings.notification.enabled).toBe(false);
    expect(settings.local.httpPort).toBe(3000);
    expect(settings.breakingChange).toEqual({ previousResourceReference: 'previous', currentResourceReference: 'current' });
  });

  it('reads `previous-vs-current` as `breaking-change`', async () => {
    const settings = await load(`${ROOT}.previous-vs-current { previous-resource-reference = "old", current-resource-reference = "new" }`);
    expect(settings.breakingChange).toEqual({ previousResourceReference: 'old', currentResourceReference: 'new' });
  });

  it('reads `cache-expiration` as `cache-duration`', async () => {
    const settings = await load(`${ROOT}.platform-services.auth.cache-expiration = "5 minutes"`);
    expect(settings.platformServices.auth.cacheDuration).toBe(300_000);
  });

  it('follows include and lets the including file override', async () => {
    const base = writeSettingsFile(`${MINIMAL}\n${ROOT}.database.port = 5433\n${ROOT}.database.name = "base"`);
    const settings = await loadSettings(writeSettingsFile(`include file("${base}")\n${ROOT}.database.name = "override"`), {});
    expect(settings.database.port).toBe(5433);
    expect(settings.database.name).toBe('override');
  });

  it('substitutes ${?ENV} when the variable is set and keeps the earlier value when not', async () => {
    vi.stubEnv('CGP_TEST_SECRET', 'from-the-environment');
    const set = await load(`${ROOT}.platform-services.http-secret = \${?CGP_TEST_SECRET}`);
    expect(set.platformServices.httpSecret).toBe('from-the-environment');
    const unset = await load(`${ROOT}.platform-services.http-secret = "fallback"`, `${ROOT}.platform-services.http-secret = \${?CGP_TEST_UNSET_VARIABLE}`);
    expect(unset.platformServices.httpSecret).toBe('fallback');
  });

  it('reads booleans and numbers that arrive as strings from the environment', async () => {
    vi.stubEnv('CGP_TEST_PORT', '3100');
    vi.stubEnv('CGP_TEST_FLAG', 'true');
    const settings = await load(
      `${ROOT}.local.http-port = \${?CGP_TEST_PORT}`,
      `${ROOT}.audit-flag-holder = 1`.replace(/.*/, ''),
      `${ROOT}.platform-services.audit.enabled = \${?CGP_TEST_FLAG}`,
    );
    expect(settings.local.httpPort).toBe(3100);
    expect(settings.platformServices.audit.enabled).toBe(true);
  });

  it('takes DATABASE_URL from the environment', async () => {
    const settings = await loadSettings(writeSettingsFile(MINIMAL), { DATABASE_URL: 'postgresql://u:p@db:5432/x' });
    expect(settings.databaseUrlFromEnvironment).toBe('postgresql://u:p@db:5432/x');
  });

  it('is frozen', async () => {
    const settings = await load();
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.database)).toBe(true);
    expect(() => {
      (settings.database as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe('rejected settings', () => {
  it('a missing file, with its path', async () => {
    const error = await loadSettings('/nonexistent/application.conf', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toContain('/nonexistent/application.conf');
  });

  it('text that is not HOCON', async () => {
    const problems = await problemsOf(`${ROOT} { database { port = [ }`);
    expect(problems[0]).toMatch(/not valid HOCON/);
  });

  it('plain http:// URLs of the platform, its key set, notifications and events when deployed, each named (loopback excepted)', async () => {
    const deployed = { AWS_LAMBDA_FUNCTION_NAME: 'cgp-prod-evaluate' };
    const file = writeSettingsFile(
      `${ROOT} { notification { enabled = true, url = "http://notify.test/n", secret = "s", failure-event = "f", new-policy-event = "p", new-metric-event = "m" }, ` +
        `platform-services { base-url = "http://platform.test", auth.jwks-url = "https://platform.test/jwks.json" }, ` +
        `events { enabled = true, events-backend-base-url = "http://127.0.0.1:9000", runtime-policy-failed-topic = "t" }, database {} }`,
    );
    const error = (await loadSettings(file, deployed).catch((caught: unknown) => caught)) as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toEqual([
      `${ROOT}.platform-services.base-url: expected an https:// URL when deployed (calls to the platform carry tokens and secrets)`,
      `${ROOT}.notification.url: expected an https:// URL when deployed (calls to the platform carry tokens and secrets)`,
    ]);
    // Locally (npm start, serverless offline) http is fine.
    await expect(loadSettings(file, {})).resolves.toBeDefined();
    await expect(loadSettings(file, { ...deployed, IS_OFFLINE: 'true' })).resolves.toBeDefined();
  });

  it('a file without the root block', async () => {
    expect(await problemsOf('other { a = 1 }')).toEqual([`${ROOT}: required, expected the root block of the settings`]);
  });

  it('missing mandatory blocks and values, each named', async () => {
    const problems = await problemsOf(`${ROOT} { }`);
    expect(problems.some((p) => p.startsWith(`${ROOT}.notification: required`))).toBe(true);
    expect(problems.some((p) => p.startsWith(`${ROOT}.platform-services: required`))).toBe(true);
    expect(problems.some((p) => p.startsWith(`${ROOT}.database: required`))).toBe(true);
  });

  it('notification.enabled is required in the notification block', async () => {
    const problems = await problemsOf(`${ROOT} { notification {}, platform-services { base-url = "http://p.test" }, database {} }`);
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${ROOT}\\.notification\\.enabled: required`))]);
  });

  it('an unknown key, so that typos do not pass silently', async () => {
    const problems = await problemsOf(`${MINIMAL}\n${ROOT}.database.migrate-on-strat = true`);
    expect(problems).toEqual([`${ROOT}.database.migrate-on-strat: unknown setting`]);
  });

  it('values required by an enabled feature', async () => {
    const problems = await problemsOf(
      [MINIMAL, `${ROOT}.events.enabled = true`, `${ROOT}.notification.enabled = true`, `${ROOT}.platform-services.auth.basic-auth.enabled = true`].join('\n'),
    );
    for (const key of [
      'events.events-backend-base-url',
      'events.runtime-policy-failed-topic',
      'notification.url',
      'notification.secret',
      'notification.failure-event',
      'platform-services.auth.basic-auth.short-lived-token-duration-seconds',
    ]) {
      expect(problems, key).toContain(
        `${ROOT}.${key}: required when ${key.startsWith('events') ? 'events' : key.startsWith('notification') ? 'notification' : 'basic-auth'}.enabled is true`,
      );
    }
  });

  it('lists every problem at once', async () => {
    const problems = await problemsOf(`${MINIMAL}\n${ROOT}.database.port = "x"\n${ROOT}.http.client-read-timeout = "later"`);
    expect(problems).toHaveLength(2);
  });
});

describe('backend secrets', () => {
  const KEY = `${ROOT}.platform-services.auth.backend-secrets`;
  const LONG = 'a-backend-secret-of-32-bytes-abc';
  const SHORT = 'a-backend-secret-of-31-bytes-ab';

  it('are refused shorter than 32 bytes (UTF-8), the key and the minimum named, never the secret', async () => {
    expect([Buffer.byteLength(LONG), Buffer.byteLength(SHORT)]).toEqual([32, 31]);
    const error = (await load(`${KEY} = ["${LONG}", "${SHORT}"]`).catch((caught: unknown) => caught)) as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toEqual([`${KEY}.1: expected a secret of at least 32 bytes (UTF-8), got a shorter one (openssl rand -base64 32 makes one)`]);
    expect(error.message).not.toContain(SHORT);
    expect(error.message).not.toContain(LONG);
    expect((await load(`${KEY} = ["${LONG}"]`)).platformServices.auth.backendSecrets).toEqual([LONG]);
  });

  it('count bytes, not characters: 16 two-byte characters are enough, 15 and one more byte are not', async () => {
    expect((await load(`${KEY} = ["${'é'.repeat(16)}"]`)).platformServices.auth.backendSecrets).toEqual(['é'.repeat(16)]);
    const problems = await problemsOf(`${MINIMAL}\n${KEY} = ["${'é'.repeat(15)}a"]`);
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${KEY.replaceAll('.', '\\.')}\\.0: expected a secret of at least 32 bytes`))]);
  });

  it('come from AUTH_BACKEND_SECRETS in the shipped application.conf, comma-separated (two during a rotation)', async () => {
    const second = 'second-backend-secret-0123456789abcdef';
    vi.stubEnv('AUTH_BACKEND_SECRETS', ` ${LONG}, ${second} ,`);
    expect((await loadSettings(APPLICATION_CONF, {})).platformServices.auth.backendSecrets).toEqual([LONG, second]);
    vi.stubEnv('AUTH_BACKEND_SECRETS', '');
    expect((await loadSettings(APPLICATION_CONF, {})).platformServices.auth.backendSecrets).toEqual([]);
  });

  it('from AUTH_BACKEND_SECRETS are held to 32 bytes too', async () => {
    vi.stubEnv('AUTH_BACKEND_SECRETS', `${LONG},${SHORT}`);
    const error = (await loadSettings(APPLICATION_CONF, {}).catch((caught: unknown) => caught)) as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toEqual([expect.stringContaining(`${KEY}.1: expected a secret of at least 32 bytes (UTF-8)`)]);
    expect(error.message).not.toContain(SHORT);
  });
});

describe('resource types in settings', () => {
  const entry = (body: string) => `${ROOT}.resource-types = [ ${body} ]`;
  const resolver = 'resolver-configuration { url = "http://resolver.test", path = "/v1/resources" }';

  it('reads an entry with its configuration; batch-size is a string holding a positive integer', async () => {
    const settings = await load(
      entry(
        `{ name = "dataproduct", display-name = "Data product", configuration { resource-name = "id", resource-display-name = ["name", "domain"], resource-filter = "version", batch-size = "50" }, ${resolver} }`,
      ),
    );
    expect(settings.resourceTypes).toEqual([
      {
        name: 'dataproduct',
        displayName: 'Data product',
        configuration: { resourceName: 'id', resourceDisplayName: ['name', 'domain'], resourceFilter: 'version', batchSize: 50 },
        resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' },
      },
    ]);
  });

  it('lets a later entry with the same name overwrite an earlier one', async () => {
    const settings = await load(entry(`{ name = "t", display-name = "first", ${resolver} }, { name = "t", display-name = "second", ${resolver} }`));
    expect(settings.resourceTypes.map((type) => type.displayName)).toEqual(['second']);
  });

  it.each([
    ['"0"', 'positive integer'],
    ['"ten"', 'positive integer'],
    ['"-4"', 'positive integer'],
  ])('rejects batch-size %s with its key path', async (value, message) => {
    const problems = await problemsOf(`${MINIMAL}\n${entry(`{ name = "t", configuration { resource-name = "id", batch-size = ${value} }, ${resolver} }`)}`);
    expect(problems).toEqual([expect.stringContaining(`${ROOT}.resource-types.0.configuration.batch-size: expected a ${message}`)]);
  });

  it('holds batch-size to the rule of the register API: at most 10000', async () => {
    const problems = await problemsOf(`${MINIMAL}\n${entry(`{ name = "t", configuration { resource-name = "id", batch-size = "10001" }, ${resolver} }`)}`);
    expect(problems).toEqual([expect.stringContaining(`${ROOT}.resource-types.0.configuration.batch-size: expected at most 10000`)]);
  });

  it('requires resolver-configuration', async () => {
    const problems = await problemsOf(`${MINIMAL}\n${entry('{ name = "t" }')}`);
    expect(problems).toEqual([`${ROOT}.resource-types.0.resolver-configuration: required, expected object`]);
  });
});
