import { randomUUID } from 'node:crypto';

import type { Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import { CONTENT_SECURITY_POLICY } from '#lib/console/console-files';

import { type ConsoleBrowser, consoleUrl, inPage, openBrowser, screenshot, VIEWPORTS } from '../support/browser';
import { authorized, technicalToken } from '../support/tokens';

const baseUrl = inject('baseUrl');
const CREDENTIALS_KEY = 'cgp.console.credentials';

/** What the console shows after a call to the API: a busy machine may take seconds. */
const SLOW = { timeout: 15_000 };

const storedCredentials = (page: Page) => inPage<string | null>(page, `sessionStorage.getItem('${CREDENTIALS_KEY}')`);

let browser: ConsoleBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/** Signs in with the link npm start prints, then goes to the policies (the navigation's link). */
async function openPolicies(page: Page) {
  await page.goto(consoleUrl(await technicalToken()));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor();
}

/** Opens the browser for a test (closed after it); the page's problems are checked by the test. */
async function open(viewport?: { width: number; height: number }) {
  browser = await openBrowser(viewport);
  return browser;
}

describe('the console is served by the application', () => {
  it('answers /console with the page (no credentials needed), a strict Content-Security-Policy and no-cache', async () => {
    const response = await fetch(`${baseUrl}/console`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|https?:/);
    const html = await response.text();
    // No inline script or style: only files of its own.
    expect(html).not.toMatch(/<script>|<style|style=/);
    const assets = [...html.matchAll(/(?:src|href)="(console\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets.map((asset) => asset.replace(/-[A-Z0-9]+\./, '-HASH.'))).toEqual(['console/assets/console-HASH.css', 'console/assets/console-HASH.js']);
    for (const asset of assets) {
      const file = await fetch(`${baseUrl}/${asset}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe(asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });

  it('sends other paths below /console back to the page, and has no file it did not build', async () => {
    for (const [route, location] of [
      ['/console/policies', '../console'],
      ['/console/policies/x', '../../console'],
    ]) {
      const response = await fetch(`${baseUrl}${route}`, { redirect: 'manual' });
      expect([route, response.status, response.headers.get('location')]).toEqual([route, 308, location]);
    }
    const missing = await fetch(`${baseUrl}/console/assets/console-NOTBUILT.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ detail: 'The console has no file assets/console-NOTBUILT.js' });
  });
});

describe('signing in', () => {
  it('with the link npm start prints: the token is kept for the tab only and leaves the address bar', async () => {
    const { page, problems } = await open();
    const token = await technicalToken({ sub: 'console-link' });
    await page.goto(consoleUrl(token));
    // The Overview is the default page.
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).toBe(`${baseUrl}/console#/overview`);
    expect(JSON.parse((await storedCredentials(page)) ?? '{}')).toEqual({ kind: 'bearer', token });
    expect(await inPage(page, 'localStorage.length')).toBe(0);
    // The new tab's blank page, then the console: the address with the token was replaced, not kept.
    expect(await inPage(page, 'history.length')).toBe(2);
    expect(problems).toEqual([]);
  });

  it('also at /console/ (a trailing slash), whose page finds the same assets', async () => {
    const { page, problems } = await open();
    await page.goto(`${baseUrl}/console/#token=${await technicalToken()}`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).toBe(`${baseUrl}/console/#/overview`);
    expect(problems).toEqual([]);
  });

  it('with a pasted token: a refused one is explained on the form, an accepted one opens the console', async () => {
    const { page, problems } = await open();
    await page.goto(consoleUrl());
    await page.getByLabel('Bearer token').fill(await technicalToken({}, 'not-the-backend-secret-0123456789abcdef'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), SLOW).toContain('The credentials are not valid');
    expect(await storedCredentials(page)).toBeNull();
    // This API does not accept Basic: the form does not offer it (console-basic-sign-in.test.ts: where it does).
    expect(await page.getByLabel('User and access token').count()).toBe(0);
    await screenshot(page, 'console-sign-in');

    await page.getByLabel('Bearer token').fill(`Bearer ${await technicalToken()}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('returns to sign-in, saying why, when the API refuses the credentials of the tab (401)', async () => {
    const { page } = await open();
    await page.goto(consoleUrl(await technicalToken()));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // The token expires or is revoked while the tab is open.
    await inPage(page, `sessionStorage.setItem('${CREDENTIALS_KEY}', JSON.stringify({ kind: 'bearer', token: 'a.b.c' }))`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Metrics', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toBe('Signed out: The Authorization header holds neither a Bearer token nor Basic credentials');
    expect(await storedCredentials(page)).toBeNull();
  });
});

describe('the policies list', () => {
  const marker = `console-${randomUUID().slice(0, 8)}`;
  const COUNT = 27;

  beforeAll(async () => {
    const call = async (route: string, body: unknown) => {
      const response = await fetch(`${baseUrl}/v1/computational-governance${route}`, {
        method: 'POST',
        headers: await authorized({ 'content-type': 'application/json' }),
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
      return (await response.json()) as { id: string };
    };
    await call('/resource-types', { name: 'console-dataproduct', resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' } });
    for (let index = 1; index <= COUNT; index++) {
      const created = await call('/policies', {
        name: `${marker} policy ${String(index).padStart(2, '0')}`,
        resourceType: 'console-dataproduct',
        environment: index % 2 === 0 ? 'development' : 'production',
        engine: 'cue',
        cueScript: 'owner: string\n',
      });
      if (index <= 3) await call(`/policies/${created.id}/status`, { status: 'grace' });
    }
  });

  it('shows the API page by page, filtered by the API, each row linking to its policy', async () => {
    const { page, problems } = await open();
    await openPolicies(page);
    await page.getByLabel('Name or description').fill(marker);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).textContent(), SLOW).toContain(`1–25 of ${COUNT}`);
    const rows = page.getByRole('region', { name: 'policies' }).locator('tbody tr');
    expect(await rows.count()).toBe(25);
    const first = page.getByRole('link', { name: `${marker} policy`, exact: false }).first();
    expect(await first.getAttribute('href')).toMatch(/^#\/policies\/[0-9a-f-]{36}$/);
    await screenshot(page, 'console-policies');

    await page.getByRole('link', { name: 'Next' }).click();
    await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).textContent(), SLOW).toContain(`26–${COUNT} of ${COUNT}`);
    expect(await rows.count()).toBe(COUNT - 25);
    expect(page.url()).toContain('offset=25');

    // The status filter, applied as it is chosen.
    await page.getByLabel('Status').selectOption('grace');
    await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).textContent(), SLOW).toContain('1–3 of 3');
    expect(page.url()).not.toContain('offset');
    expect(problems).toEqual([]);
  });

  it("keeps what is typed in a filter while data arrives, and puts the API's message about it next to it", async () => {
    const { page } = await open();
    // The environments (the filter's choices) answer only once the filter is typed in.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/v1/computational-governance/environments?*', async (route) => {
      await held;
      await route.continue();
    });
    await openPolicies(page);
    const field = page.getByLabel('Name or description');
    await field.fill('x'.repeat(201));
    release();
    await expect.poll(() => page.locator('#environment-choices option').count(), SLOW).toBe(3);
    expect(await field.inputValue()).toBe('x'.repeat(201));

    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid'), SLOW).toBe('true');
    const describedBy = await field.getAttribute('aria-describedby');
    expect(await page.locator(`#${describedBy}`).textContent()).toBe('text is longer than 200 characters');
    expect(await page.getByRole('alert').textContent()).toContain('query.text');
  });

  it('works on a 390 px phone screen: nothing wider than the screen but the table, which scrolls; reachable with the keyboard', async () => {
    const { page, problems } = await open(VIEWPORTS.phone);
    await openPolicies(page);
    // A new page starts at its heading; before it are the navigation and the skip link.
    await expect.poll(() => inPage(page, 'document.activeElement?.tagName'), SLOW).toBe('H1');
    const before: unknown[] = [];
    for (let step = 0; step < 6; step++) {
      await page.keyboard.press('Shift+Tab');
      before.push(await inPage(page, 'document.activeElement?.textContent'));
    }
    expect(before).toEqual(['Sign out', 'Resources', 'Metrics', 'Policies', 'Overview', 'Skip to content']);

    await page.getByLabel('Name or description').fill(marker);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).textContent(), SLOW).toContain(`of ${COUNT}`);
    expect(await inPage(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    await screenshot(page, 'console-policies-phone');
    expect(problems).toEqual([]);
  });
});
