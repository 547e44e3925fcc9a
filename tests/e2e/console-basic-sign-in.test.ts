import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { freePort } from '../../scripts/free-port';
import { type RunningOffline, startServerlessOffline } from '../../scripts/serverless-offline';
import { FakePlatformAuth } from '../fakes/platform-auth';
import { type ConsoleBrowser, inPage, openBrowser } from '../support/browser';
import { testSettingsFile } from '../support/settings-files';

/**
 * Basic sign-in needs a deployment that accepts Basic: a second serverless offline on the
 * end-to-end database, with auth.basic-auth enabled and the platform's token exchange and key set
 * played by a fake.
 */
const platform = new FakePlatformAuth();
let offline: RunningOffline;
let browser: ConsoleBrowser | undefined;

beforeAll(async () => {
  await platform.start();
  await platform.addKey('k1', 'RS256');
  platform.exchangeKid = 'k1';
  platform.accessTokens.set('access-token-1', 'alice');
  const configFile = testSettingsFile(`
    computational-governance-platform.database.schema = "e2e"
    computational-governance-platform.platform-services {
      base-url = "${platform.url}"
      http-secret = "platform-http-secret"
      auth.basic-auth.enabled = true
    }
    # The token the platform exchanges alice's access token for (subject alice) names no role: a binding gives one, as a deployment would.
    computational-governance-platform.authorization.bindings = [{ subjects = ["alice"], roles = ["reader"] }]
  `);
  offline = startServerlessOffline({
    httpPort: await freePort(),
    lambdaPort: await freePort(),
    env: { ...process.env, DATABASE_URL: inject('databaseUrl'), CGP_CONFIG_FILE: configFile, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  await offline.ready;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await offline?.stop();
  await platform.stop();
});

describe('signing in with a user and an access token (Basic), where the API accepts it', () => {
  it('offers the choice, explains a refusal, and signs in with credentials the platform exchanges', async () => {
    browser = await openBrowser();
    const { page, problems } = browser;
    await page.goto(`${offline.baseUrl}/console`);
    await page.getByLabel('User and access token').check();
    await page.getByLabel('User', { exact: true }).fill('alice');
    await page.getByLabel('Access token', { exact: true }).fill('not-an-access-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 15_000 }).toContain('The credentials are not valid');

    await page.getByLabel('Access token', { exact: true }).fill('access-token-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // Who the API takes her for (the subject of the platform's token) and her role: GET /me.
    expect(await page.getByRole('banner').locator('.who').textContent()).toBe('Signed in as alice reader');
    expect(JSON.parse((await inPage<string | null>(page, "sessionStorage.getItem('cgp.console.credentials')")) ?? '{}')).toEqual({
      kind: 'basic',
      user: 'alice',
      accessToken: 'access-token-1',
    });
    // The API exchanged the access token with the platform (with its http-secret), the console never saw a JWT.
    expect(platform.exchanges.map((exchange) => (exchange.body as { access_token?: string } | undefined)?.access_token)).toEqual(
      expect.arrayContaining(['not-an-access-token', 'access-token-1']),
    );
    expect(platform.exchanges.every((exchange) => exchange.headers.authorization === 'Bearer platform-http-secret')).toBe(true);
    expect(problems).toEqual([]);
  });
});
