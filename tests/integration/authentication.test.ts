import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { decodeJwt, exportSPKI, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { AuthenticationError, Authenticator } from '#lib/auth/authenticator';
import { KeySetCache } from '#lib/auth/key-set-cache';
import { keySetUrl } from '#lib/http/authentication';
import { outboundFetch, timeoutsOf } from '#lib/platform/http-client';
import type { Settings } from '#lib/settings/index';

import { FakePlatformAuth } from '../fakes/platform-auth';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { present } from '../support/present';
import { settingsWith, testSettingsFile } from '../support/settings-files';
import { technicalToken } from '../support/tokens';

const run = promisify(execFile);
const platform = new FakePlatformAuth();
const FIRST_SECRET = 'first-backend-secret-aaaaaaaaaaaaaaaa';
const SECOND_SECRET = 'second-backend-secret-bbbbbbbbbbbbbbb';
let clock = Date.now();

const settingsFor = (auth = '') =>
  settingsWith(`computational-governance-platform.platform-services {
    base-url = "${platform.url}"
    http-secret = "platform-http-secret"
    auth { backend-secrets = ["${FIRST_SECRET}", "${SECOND_SECRET}"], cache-size = 2, cache-duration = "10 minutes", ${auth} }
  }`);

function authenticatorFor(settings: Settings, minRefetchIntervalMs = 60_000, exchangesKept?: number) {
  const keySet = new KeySetCache({
    url: keySetUrl(settings),
    fetch: outboundFetch(timeoutsOf(settings)),
    maxKeys: settings.platformServices.auth.cacheSize,
    ttlMs: settings.platformServices.auth.cacheDuration,
    minRefetchIntervalMs,
    now: () => clock,
  });
  const secrets = settings.platformServices.auth.backendSecrets.map((secret) => new TextEncoder().encode(secret));
  return { keySet, authenticator: new Authenticator(settings, keySet, secrets, () => clock, exchangesKept) };
}

async function rejection(authenticator: Authenticator, header: string | undefined): Promise<string> {
  const error = await authenticator.authenticate(header).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  return (error as AuthenticationError).reason;
}

beforeAll(async () => {
  await platform.start();
  await platform.addKey('k1', 'RS256');
  await platform.addKey('k2', 'ES256');
  platform.exchangeKid = 'k1';
});

beforeEach(() => {
  platform.requests.length = 0;
  clock = Date.now();
});

afterAll(async () => {
  await platform.stop();
});

describe('accepted credentials', () => {
  it('the token npm run token prints, under the default maximum lifetime and under a shorter one', async () => {
    for (const [auth, lifetimeS] of [
      ['', 12 * 3600],
      ['technical-token-max-lifetime = "1 hour"', 3600],
    ] as const) {
      const settings = await settingsFor(auth);
      const overrides = `computational-governance-platform.platform-services.auth { backend-secrets = ["${FIRST_SECRET}"], ${auth} }`;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/token.ts', 'ci-job'], {
        env: { ...process.env, CGP_CONFIG_FILE: testSettingsFile(overrides) },
      });
      const token = stdout.trim();
      const claims = decodeJwt(token);
      const [exp, iat] = [present(claims.exp, 'exp'), present(claims.iat, 'iat')];
      expect(exp - iat).toBe(lifetimeS);
      clock = iat * 1000;
      expect(await authenticatorFor(settings).authenticator.authenticate(`Bearer ${token}`)).toMatchObject({ subject: 'ci-job', method: 'technical' });
      // An admin's token, as the README flow needs.
      expect(claims.roles).toEqual(['admin']);
    }
  });

  it('npm run token -- --subject NAME --roles r1,r2 prints a token of that subject and those roles; an unknown role is refused', async () => {
    const env = {
      ...process.env,
      CGP_CONFIG_FILE: testSettingsFile(`computational-governance-platform.platform-services.auth.backend-secrets = ["${FIRST_SECRET}"]`),
    };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/token.ts', '--subject', 'ana', '--roles', 'author,approver'], { env });
    expect(decodeJwt(stdout.trim())).toMatchObject({ sub: 'ana', roles: ['author', 'approver'] });
    const refused = await run(process.execPath, ['--import', 'tsx', 'scripts/token.ts', '--roles', 'author,owner'], { env }).catch(
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect((refused as { stderr: string }).stderr).toContain('Unknown role: owner');
  });

  it('a service-account JWT verified with the platform key set', async () => {
    const { authenticator } = authenticatorFor(await settingsFor());
    expect(await authenticator.authenticate(`Bearer ${await platform.sign('k1', { sub: 'svc-orders' })}`)).toMatchObject({
      subject: 'svc-orders',
      method: 'service-account',
    });
    expect(await authenticator.authenticate(`Bearer ${await platform.sign('k2', { sub: 'svc-es' })}`)).toMatchObject({
      subject: 'svc-es',
      method: 'service-account',
    });
  });

  it('a token verified once is kept verified no longer than it is valid, nor, for a service account, than its key is kept (cache-duration)', async () => {
    await platform.addKey('k3', 'RS256', false);
    await platform.publish('k1', 'k2', 'k3');
    const { authenticator } = authenticatorFor(await settingsFor(), 0);
    const rotated = `Bearer ${await platform.sign('k3', { sub: 'svc-rotated' }, { expiresIn: Math.floor(clock / 1000) + 3600 })}`;
    expect(await authenticator.authenticate(rotated)).toMatchObject({ subject: 'svc-rotated' });
    // The platform stops publishing k3: its tokens stop working once the process forgets the key (10 minutes here).
    await platform.publish('k1', 'k2');
    clock += 5 * 60_000;
    expect(await authenticator.authenticate(rotated)).toMatchObject({ subject: 'svc-rotated' });
    clock += 6 * 60_000;
    expect(await rejection(authenticator, rotated)).toBe('invalid');

    // A technical token of ten minutes, verified now and then past its expiry (and the 30 s clock tolerance).
    clock = Date.now();
    const technical = `Bearer ${await technicalToken({ sub: 'ci-job' }, FIRST_SECRET)}`;
    expect(await authenticator.authenticate(technical)).toMatchObject({ subject: 'ci-job' });
    clock += 10 * 60_000 + 31_000;
    expect(await rejection(authenticator, technical)).toBe('expired');
  });

  it('a technical JWT under the second of two backend secrets', async () => {
    const { authenticator } = authenticatorFor(await settingsFor());
    const token = await technicalToken({ sub: 'backend-job' }, SECOND_SECRET, 'HS512');
    expect(await authenticator.authenticate(`Bearer ${token}`)).toMatchObject({ subject: 'backend-job', method: 'technical' });
  });

  it('Basic credentials exchanged once for a JWT, the next call served from the cache', async () => {
    platform.accessTokens.set('access-token-1', 'alice');
    const { authenticator } = authenticatorFor(await settingsFor('basic-auth { enabled = true, short-lived-token-duration-seconds = 300 }'));
    const header = `Basic ${Buffer.from('alice:access-token-1').toString('base64')}`;
    const calls = await Promise.all([authenticator.authenticate(header), authenticator.authenticate(header)]);
    expect(await authenticator.authenticate(header)).toMatchObject({ subject: 'alice', method: 'basic' });
    expect(calls.map((call) => call.method)).toEqual(['basic', 'basic']);
    expect(platform.exchanges).toHaveLength(1);
    expect(platform.exchanges[0].body).toEqual({ access_token: 'access-token-1', duration_seconds: 300, scope: 'computational-governance' });
    expect(platform.exchanges[0].headers.authorization).toBe('Bearer platform-http-secret');
  });

  it('keeps the exchanged JWTs of at most its bound of access tokens, the least recently used going first', async () => {
    const tokens = Array.from({ length: 40 }, (_, index) => `bulk-access-token-${index}`);
    tokens.forEach((token) => platform.accessTokens.set(token, 'bob'));
    const { authenticator } = authenticatorFor(await settingsFor('basic-auth { enabled = true }'), 60_000, 8);
    const basic = (token: string) => authenticator.authenticate(`Basic ${Buffer.from(`bob:${token}`).toString('base64')}`);
    for (const token of tokens) {
      await basic(token);
      expect(authenticator.exchangedTokens).toBeLessThanOrEqual(8);
    }
    expect(authenticator.exchangedTokens).toBe(8);
    expect(platform.exchanges).toHaveLength(40);
    // The last eight are served from the cache; the first was dropped and is exchanged again.
    for (const token of tokens.slice(-8)) await basic(token);
    expect(platform.exchanges).toHaveLength(40);
    await basic(tokens[0]);
    expect(platform.exchanges).toHaveLength(41);
    expect(authenticator.exchangedTokens).toBe(8);
  });
});

describe('rejected credentials', () => {
  let authenticator: Authenticator;
  beforeAll(async () => {
    authenticator = authenticatorFor(await settingsFor('issuer = "https://platform.test", audience = "governance"')).authenticator;
  });
  const valid = { iss: 'https://platform.test', aud: 'governance' };

  it('no header, or not a Bearer token nor Basic', async () => {
    expect(await rejection(authenticator, undefined)).toBe('missing');
    expect(await rejection(authenticator, 'Token abc')).toBe('malformed');
    expect(await rejection(authenticator, 'Bearer not.a.jwt.at.all')).toBe('malformed');
  });

  it('alg none', async () => {
    expect(await rejection(authenticator, `Bearer ${new UnsecuredJWT({ sub: 'x', ...valid }).setExpirationTime('5m').encode()}`)).toBe('invalid');
  });

  it('HS256 signed with the platform public key (algorithm confusion)', async () => {
    const publicPem = await exportSPKI(platform.key('k1').pair.publicKey);
    const forged = await new SignJWT({ sub: 'attacker', ...valid })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(publicPem));
    expect(await rejection(authenticator, `Bearer ${forged}`)).toBe('invalid');
  });

  it('expired, and not yet valid (beyond the clock tolerance)', async () => {
    const expired = await platform.sign('k1', valid, { expiresIn: Math.floor(Date.now() / 1000) - 120 });
    expect(await rejection(authenticator, `Bearer ${expired}`)).toBe('expired');
    const future = await platform.sign('k1', valid, { notBefore: Math.floor(Date.now() / 1000) + 600, expiresIn: '20m' });
    expect(await rejection(authenticator, `Bearer ${future}`)).toBe('not yet valid');
  });

  it('a wrong issuer or audience when configured', async () => {
    expect(await rejection(authenticator, `Bearer ${await platform.sign('k1', { ...valid, iss: 'https://evil.test' })}`)).toBe('invalid');
    expect(await rejection(authenticator, `Bearer ${await platform.sign('k1', { ...valid, aud: 'other' })}`)).toBe('invalid');
    expect(await authenticator.authenticate(`Bearer ${await platform.sign('k1', valid)}`)).toMatchObject({ method: 'service-account' });
  });

  it('a tampered payload', async () => {
    const [header, , signature] = (await platform.sign('k1', valid)).split('.');
    const payload = Buffer.from(JSON.stringify({ sub: 'admin', ...valid, exp: Math.floor(Date.now() / 1000) + 300 })).toString('base64url');
    expect(await rejection(authenticator, `Bearer ${header}.${payload}.${signature}`)).toBe('invalid');
  });

  it('a technical JWT under a secret that is not configured', async () => {
    expect(await rejection(authenticator, `Bearer ${await technicalToken({}, 'some-other-secret-cccccccccccccccccc')}`)).toBe('invalid');
  });

  it('an unknown kid: the key set is fetched again once, then the token refused', async () => {
    const { authenticator: fresh, keySet } = authenticatorFor(await settingsFor(), 10_000);
    await fresh.authenticate(`Bearer ${await platform.sign('k1')}`);
    await platform.addKey('k-unpublished', 'RS256', false);
    const token = await platform.sign('k-unpublished');
    clock += 11_000;
    expect(await rejection(fresh, `Bearer ${token}`)).toBe('invalid');
    expect(await rejection(fresh, `Bearer ${token}`)).toBe('invalid');
    expect(keySet.fetchCount).toBe(2);
    expect(platform.keySetFetches).toBe(2);
  });

  it('a token without exp, service-account or technical', async () => {
    expect(await rejection(authenticator, `Bearer ${await platform.sign('k1', valid, { expiresIn: null })}`)).toBe('no expiry');
    const forever = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('ci').setIssuedAt().sign(new TextEncoder().encode(FIRST_SECRET));
    expect(await rejection(authenticator, `Bearer ${forever}`)).toBe('no expiry');
  });

  it('a technical token that lives longer than technical-token-max-lifetime, also one whose iat claims the future', async () => {
    const { authenticator: bounded } = authenticatorFor(await settingsFor('technical-token-max-lifetime = "1 hour"'));
    const nowS = Math.floor(clock / 1000);
    const sign = (iat: number | undefined, exp: number) => {
      const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('ci').setExpirationTime(exp);
      if (iat !== undefined) jwt.setIssuedAt(iat);
      return jwt.sign(new TextEncoder().encode(FIRST_SECRET));
    };
    expect(await bounded.authenticate(`Bearer ${await sign(nowS, nowS + 3500)}`)).toMatchObject({ subject: 'ci', method: 'technical' });
    expect(await rejection(bounded, `Bearer ${await sign(nowS, nowS + 7200)}`)).toBe('too long-lived');
    expect(await rejection(bounded, `Bearer ${await sign(undefined, nowS + 7200)}`)).toBe('too long-lived');
    expect(await rejection(bounded, `Bearer ${await sign(nowS + 86_400 * 365, nowS + 86_400 * 365 + 60)}`)).toBe('too long-lived');
  });

  it('Basic when it is disabled', async () => {
    expect(await rejection(authenticator, `Basic ${Buffer.from('alice:token').toString('base64')}`)).toBe('basic disabled');
    expect(platform.exchanges).toHaveLength(0);
  });

  it('Basic with an access token the platform refuses', async () => {
    const { authenticator: basic } = authenticatorFor(await settingsFor('basic-auth { enabled = true, short-lived-token-duration-seconds = 300 }'));
    expect(await rejection(basic, `Basic ${Buffer.from('alice:wrong').toString('base64')}`)).toBe('invalid');
  });

  it("Basic with a user name that is not the access token's subject: the name is never believed", async () => {
    platform.accessTokens.set('mallory-access-token', 'mallory@acme.io');
    const { authenticator: basic } = authenticatorFor(await settingsFor('basic-auth { enabled = true }'));
    const as = (user: string) => `Basic ${Buffer.from(`${user}:mallory-access-token`).toString('base64')}`;
    expect(await rejection(basic, as('ana@acme.io'))).toBe('user mismatch');
    expect(await rejection(basic, as(''))).toBe('user mismatch');
    // The same name in another Unicode form, case or with blanks around it is the same user.
    expect(await basic.authenticate(as(' Mallory@ACME.io'))).toMatchObject({ subject: 'mallory@acme.io', method: 'basic' });
  });

  it('Basic with an access token whose exchanged JWT names no subject: nobody to be', async () => {
    platform.accessTokens.set('anonymous-access-token', undefined);
    const { authenticator: basic } = authenticatorFor(await settingsFor('basic-auth { enabled = true }'));
    expect(await rejection(basic, `Basic ${Buffer.from('ana@acme.io:anonymous-access-token').toString('base64')}`)).toBe('no subject');
  });
});

describe('the key set cache', () => {
  it('keeps at most cache-size keys and does not fetch again for known kids', async () => {
    await platform.addKey('k3', 'RS256');
    const { authenticator, keySet } = authenticatorFor(await settingsFor());
    await authenticator.authenticate(`Bearer ${await platform.sign('k3')}`);
    await authenticator.authenticate(`Bearer ${await platform.sign('k3')}`);
    expect(keySet.size).toBe(2);
    expect(keySet.fetchCount).toBe(1);
    await platform.publish('k1', 'k2');
  });

  it('forgets keys after cache-duration', async () => {
    const { authenticator, keySet } = authenticatorFor(await settingsFor(), 0);
    await authenticator.authenticate(`Bearer ${await platform.sign('k1')}`);
    clock += 9 * 60_000;
    await authenticator.authenticate(`Bearer ${await platform.sign('k1', {}, { expiresIn: Math.floor(clock / 1000) + 300 })}`);
    expect(keySet.fetchCount).toBe(1);
    clock += 2 * 60_000;
    await authenticator.authenticate(`Bearer ${await platform.sign('k1', {}, { expiresIn: Math.floor(clock / 1000) + 300 })}`);
    expect(keySet.fetchCount).toBe(2);
  });

  it('while the key set cannot be fetched, every unknown kid hears "cannot be checked", with at most one fetch per interval', async () => {
    const unreachable = await settingsWith(`computational-governance-platform.platform-services {
      base-url = "http://127.0.0.1:9"
      auth { backend-secrets = ["${FIRST_SECRET}"] }
    }`);
    const { authenticator, keySet } = authenticatorFor(unreachable, 10_000);
    const token = `Bearer ${await platform.sign('k1')}`;
    const outcomes = [];
    for (let call = 0; call < 5; call++)
      outcomes.push(
        await authenticator.authenticate(token).then(
          () => 'in',
          (error: Error) => error.name,
        ),
      );
    expect(outcomes).toEqual(Array(5).fill('AuthenticationUnavailable'));
    expect(keySet.fetchCount).toBe(1);
    clock += 11_000;
    expect(
      await authenticator.authenticate(token).then(
        () => 'in',
        (error: Error) => error.name,
      ),
    ).toBe('AuthenticationUnavailable');
    expect(keySet.fetchCount).toBe(2);
  });

  it('fetches at most once for a flood of unknown kids', async () => {
    const { authenticator, keySet } = authenticatorFor(await settingsFor());
    await platform.addKey('k-flood', 'RS256', false);
    const forged = await platform.sign('k-flood');
    const reasons = await Promise.all(Array.from({ length: 20 }, () => rejection(authenticator, `Bearer ${forged}`)));
    expect(new Set(reasons)).toEqual(new Set(['invalid']));
    expect(keySet.fetchCount).toBe(1);
  });
});

describe('every endpoint', () => {
  beforeAll(async () => {
    await useHandlersOn('it_authentication');
  });
  afterAll(async () => {
    await releaseHandlers();
  });

  it('answers 401 with WWW-Authenticate and a problem that names no secret', async () => {
    const { listResourceTypes } = await import('../../functions/governance/resource-types');
    for (const authorization of ['', 'Bearer nonsense', `Bearer ${await technicalToken({}, 'not-the-test-secret-dddddddddddddd')}`]) {
      const response = await invoke(listResourceTypes, { method: 'GET', path: '/v1/computational-governance/resource-types', headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="computational-governance"/);
      expect(response.headers['content-type']).toBe('application/problem+json');
      expect(JSON.stringify(response.body)).not.toMatch(/secret/i);
    }
  });

  it('lets a valid caller in and records who wrote', async () => {
    const { registerResourceType } = await import('../../functions/governance/resource-types');
    const response = await invoke(registerResourceType, {
      method: 'POST',
      path: '/v1/computational-governance/resource-types',
      headers: { authorization: `Bearer ${await technicalToken({ sub: 'data-team-ci' })}` },
      body: { name: 'auth-check', resolverConfiguration: { url: 'http://resolver.test', path: '/r' } },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ createdBy: 'data-team-ci', updatedBy: 'data-team-ci' });
  });

  it('answers 503 without internal addresses while the platform cannot be asked', async () => {
    // These handlers' settings name the shipped base-url, where no platform listens.
    const { listResourceTypes } = await import('../../functions/governance/resource-types');
    const token = await platform.sign('k1');
    for (let call = 0; call < 3; call++) {
      const response = await invoke(listResourceTypes, {
        method: 'GET',
        path: '/v1/computational-governance/resource-types',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(503);
      expect(response.body.detail).toBe('Credentials cannot be checked right now: the platform that issues them cannot be reached. Try again shortly.');
      expect(JSON.stringify(response.body)).not.toMatch(/localhost|8080|ECONNREFUSED|jwks/i);
    }
  });

  it('leaves /health and /openapi.json open', async () => {
    const { getOpenApiDocument } = await import('../../functions/service/openapi');
    expect((await invoke(getOpenApiDocument, { method: 'GET', path: '/openapi.json', headers: { authorization: '' } })).status).toBe(200);
  });
});
