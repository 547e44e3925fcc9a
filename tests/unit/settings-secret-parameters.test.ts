import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { loadSettings, SettingsError } from '#lib/settings/index';
import { SECRET_VARIABLES } from '#lib/settings/secret-parameters';

import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { captureLogs } from '../support/log-capture';
import { APPLICATION_CONF } from '../support/settings-files';

const ROOT = 'computational-governance-platform';

/** What the fake parameter store holds, by name (a Secrets Manager secret under its reference path). */
const stored = new Map<string, string>();

/**
 * SSM Parameter Store (AWS JSON 1.1 protocol) on 127.0.0.1: GetParameters answers the names it holds, the
 * others as invalid. A name with a version (`name:2`) is answered as SSM does: its name, and the selector apart.
 */
const ssm = new FakeServer((request: RecordedRequest<{ Names: string[]; WithDecryption?: boolean }>) => {
  const names = request.body.Names;
  const answered = (requested: string) => {
    const [, name, selector] = /^(.*?)(:\d+)?$/.exec(requested) ?? [];
    return {
      Name: name,
      ...(selector ? { Selector: selector } : {}),
      Type: 'SecureString',
      Value: stored.get(requested),
      ARN: `arn:aws:ssm:eu-west-1:000000000000:parameter${name}`,
    };
  };
  return {
    status: 200,
    headers: { 'content-type': 'application/x-amz-json-1.1' },
    body: { Parameters: names.filter((name) => stored.has(name)).map(answered), InvalidParameters: names.filter((name) => !stored.has(name)) },
  };
});

const PLATFORM_HTTP_SECRET = 'platform-http-secret-from-ssm-1f0e';
const BACKEND_SECRETS = 'backend-secret-from-secrets-manager-0123456789, previous-backend-secret-0123456789abcdef';
const DATABASE_URL = 'postgresql://cgp:database-password-from-ssm@db.internal:5432/provisioning_coordinator';

/** The environment of a deployed function whose secrets are given by name. */
const deployed = (names: Record<string, string>) => ({ AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_SSM: ssm.url, ...names });

beforeAll(async () => {
  await ssm.start();
});

beforeEach(() => {
  ssm.reset();
  stored.clear();
  stored.set('/computational-governance-platform/prod/platform-http-secret', PLATFORM_HTTP_SECRET);
  stored.set('/aws/reference/secretsmanager/computational-governance-platform/prod/backend-secrets', BACKEND_SECRETS);
  stored.set('/computational-governance-platform/prod/database-url', DATABASE_URL);
  // The SDK's credentials come from the process's environment, as in a Lambda; no secret variable is set.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDTEST');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test-secret-access-key');
  for (const variable of SECRET_VARIABLES) vi.stubEnv(variable, undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  await ssm.stop();
});

describe('secrets given by name (<VAR>_SSM)', () => {
  it('are read from SSM Parameter Store (and Secrets Manager through it) in one signed GetParameters call, decrypted', async () => {
    const logs = captureLogs();
    let settings;
    try {
      settings = await loadSettings(
        APPLICATION_CONF,
        deployed({
          PLATFORM_HTTP_SECRET_SSM: '/computational-governance-platform/prod/platform-http-secret',
          AUTH_BACKEND_SECRETS_SSM: '/aws/reference/secretsmanager/computational-governance-platform/prod/backend-secrets',
          DATABASE_URL_SSM: '/computational-governance-platform/prod/database-url',
        }),
      );
    } finally {
      logs.stop();
    }
    expect(settings.platformServices.httpSecret).toBe(PLATFORM_HTTP_SECRET);
    expect(settings.platformServices.auth.backendSecrets).toEqual([
      'backend-secret-from-secrets-manager-0123456789',
      'previous-backend-secret-0123456789abcdef',
    ]);
    expect(settings.databaseUrlFromEnvironment).toBe(DATABASE_URL);

    expect(ssm.requests).toHaveLength(1);
    const [request] = ssm.requests;
    expect(request.method).toBe('POST');
    expect(request.headers['x-amz-target']).toBe('AmazonSSM.GetParameters');
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/ssm\/aws4_request/);
    expect(request.body).toEqual({
      Names: [
        '/computational-governance-platform/prod/database-url',
        '/computational-governance-platform/prod/platform-http-secret',
        '/aws/reference/secretsmanager/computational-governance-platform/prod/backend-secrets',
      ],
      WithDecryption: true,
    });

    // The values were given to the settings, not left in the environment, and no log holds one.
    for (const variable of SECRET_VARIABLES) expect(process.env[variable], variable).toBeUndefined();
    expect(logs.lines).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'read secrets from SSM Parameter Store',
        variables: ['DATABASE_URL', 'PLATFORM_HTTP_SECRET', 'AUTH_BACKEND_SECRETS'],
      }),
    ]);
    const logged = JSON.stringify(logs.lines);
    for (const secret of [PLATFORM_HTTP_SECRET, 'backend-secret-from', 'database-password-from-ssm']) expect(logged).not.toContain(secret);
  });

  it('may name a version of a parameter (a deploy that changes it starts every container anew)', async () => {
    stored.set('/computational-governance-platform/prod/platform-http-secret:2', 'platform-http-secret-version-two');
    const settings = await loadSettings(
      APPLICATION_CONF,
      deployed({ PLATFORM_HTTP_SECRET_SSM: '/computational-governance-platform/prod/platform-http-secret:2' }),
    );
    expect(settings.platformServices.httpSecret).toBe('platform-http-secret-version-two');
  });

  it('ask nothing of AWS when no <VAR>_SSM is set, as under npm start and in tests', async () => {
    const settings = await loadSettings(APPLICATION_CONF, deployed({}));
    expect(ssm.requests).toEqual([]);
    expect(settings.platformServices.httpSecret).toBeUndefined();
    expect(settings.databaseUrlFromEnvironment).toBeUndefined();
  });

  it('stop start-up naming the variable and the parameter that does not exist, never a value', async () => {
    const error = (await loadSettings(
      APPLICATION_CONF,
      deployed({
        PLATFORM_HTTP_SECRET_SSM: '/computational-governance-platform/prod/platform-http-secret',
        NOTIFICATION_SECRET_SSM: '/computational-governance-platform/prod/missing',
      }),
    ).catch((caught: unknown) => caught)) as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toEqual([
      'NOTIFICATION_SECRET_SSM: SSM Parameter Store has no parameter "/computational-governance-platform/prod/missing" (or this function may not read it)',
    ]);
    expect(error.message).not.toContain(PLATFORM_HTTP_SECRET);
  });

  it('stop start-up with the error of SSM when it refuses the call (a function without the permission)', async () => {
    ssm.answer({
      status: 400,
      headers: { 'content-type': 'application/x-amz-json-1.1' },
      body: {
        __type: 'AccessDeniedException',
        message: 'User is not authorized to perform: ssm:GetParameters on resource: arn:aws:ssm:eu-west-1:000000000000:parameter/other/secret',
      },
    });
    const error = (await loadSettings(APPLICATION_CONF, deployed({ ASSISTANT_ENCRYPTION_KEY_SSM: '/other/secret' })).catch(
      (caught: unknown) => caught,
    )) as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toEqual([
      expect.stringMatching(
        /^ASSISTANT_ENCRYPTION_KEY_SSM: could not read "\/other\/secret" from SSM Parameter Store \(AccessDeniedException: User is not authorized/,
      ),
    ]);
  });

  it('refuse a secret given both ways, without asking SSM', async () => {
    const error = (await loadSettings(
      APPLICATION_CONF,
      deployed({ PLATFORM_HTTP_SECRET: 'a-plain-secret', PLATFORM_HTTP_SECRET_SSM: '/computational-governance-platform/prod/platform-http-secret' }),
    ).catch((caught: unknown) => caught)) as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toEqual(['PLATFORM_HTTP_SECRET and PLATFORM_HTTP_SECRET_SSM are both set: give the secret one way only']);
    expect(ssm.requests).toEqual([]);
  });

  it('are held to the rules of their key: a short backend secret is refused naming the key, not the value', async () => {
    stored.set('/computational-governance-platform/prod/short', 'a-backend-secret-of-31-bytes-ab');
    const error = (await loadSettings(APPLICATION_CONF, deployed({ AUTH_BACKEND_SECRETS_SSM: '/computational-governance-platform/prod/short' })).catch(
      (caught: unknown) => caught,
    )) as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toEqual([
      expect.stringContaining(`${ROOT}.platform-services.auth.backend-secrets.0: expected a secret of at least 32 bytes (UTF-8)`),
    ]);
    expect(error.message).not.toContain('a-backend-secret-of-31-bytes-ab');
  });
});
