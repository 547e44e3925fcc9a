import { randomUUID } from 'node:crypto';

import type { Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import { CONTENT_SECURITY_POLICY } from '#lib/console/console-files';

import { type BrowserOptions, type ConsoleBrowser, consoleUrl, inPage, openAssistant, openBrowser, screenshot, VIEWPORTS } from '../support/browser';
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
async function open(options?: BrowserOptions) {
  browser = await openBrowser(options);
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
    // Locally, a token link signs the tab in (deployed, it asks first: the token link tests below).
    expect(html).toContain('<meta name="cgp-token-link" content="sign-in" />');
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
    const { page, problems } = await open({ viewport: VIEWPORTS.phone });
    await openPolicies(page);
    // A new page starts at its heading; before it are the navigation and the skip link.
    await expect.poll(() => inPage(page, 'document.activeElement?.tagName'), SLOW).toBe('H1');
    const before: unknown[] = [];
    for (let step = 0; step < 10; step++) {
      await page.keyboard.press('Shift+Tab');
      before.push(await inPage(page, 'document.activeElement?.textContent'));
    }
    // An admin's navigation: Evidence and Access too (console-access.test.ts: a reader's has neither).
    expect(before).toEqual(['Sign out', 'Assistant', 'Access', 'Evidence', 'Approvals', 'Resources', 'Metrics', 'Policies', 'Overview', 'Skip to content']);

    await page.getByLabel('Name or description').fill(marker);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).textContent(), SLOW).toContain(`of ${COUNT}`);
    expect(await inPage(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    await screenshot(page, 'console-policies-phone');
    expect(problems).toEqual([]);
  });
});

describe('the console in any language the browser reports', () => {
  // undefined: the machine's own, as a person's browser has it (on a C.UTF-8 machine Chromium says
  // en-US@posix, which Intl refuses); C is no language tag either. Those two format in en-US.
  for (const [locale, formatsIn] of [
    [undefined, undefined],
    ['de-DE', 'de-DE'],
    ['ar-EG', 'ar-EG'],
    ['C', 'en-US'],
  ] as const) {
    it(`renders the navigation, the overview and its chart, dates in ${formatsIn ?? "the machine's language"}: ${locale ?? "the machine's locale"}`, async () => {
      const { page, problems } = await open({ locale });
      await page.goto(consoleUrl(await technicalToken()));
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(SLOW);
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual([
        'Overview',
        'Policies',
        'Metrics',
        'Resources',
        'Approvals',
        'Evidence',
        'Access',
      ]);
      await page.locator('figure.trend[data-points]').waitFor(SLOW);
      expect(await page.locator('.trend-chart canvas').count()).toBe(1);
      // The moment the summary was computed, in the language the console formats in.
      const computed = page.locator('main time').first();
      const iso = await computed.getAttribute('datetime');
      const language =
        formatsIn ?? (await inPage<string>(page, "(() => { try { return Intl.getCanonicalLocales(navigator.language)[0] } catch { return 'en-US' } })()"));
      const expected = await inPage<string>(
        page,
        `new Intl.DateTimeFormat(${JSON.stringify(language)}, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(${JSON.stringify(iso)}))`,
      );
      expect(await computed.textContent()).toBe(expected);
      await screenshot(page, `console-overview-language-${locale ?? 'machine'}`);
      expect(problems).toEqual([]);
    });
  }
});

describe('no blank page', () => {
  it('shows what failed, a reload link and a sign-out inside the frame when a page throws while rendering; another page renders again', async () => {
    const { page, problems } = await open();
    // The API answers what the page cannot read: the Overview throws while rendering it.
    await page.route('**/v1/computational-governance/compliance/summary*', (route) => route.fulfill({ json: { computedAt: new Date().toISOString() } }));
    await page.goto(consoleUrl(await technicalToken()));
    const failure = page.getByRole('alert').filter({ hasText: 'This page could not be shown' });
    await failure.waitFor(SLOW);
    expect(await failure.textContent()).toMatch(/TypeError: .+/);
    expect(await failure.getByRole('link', { name: 'Reload the page' }).count()).toBe(1);
    expect(await failure.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    // Inside the console's frame: the navigation is still there, and leads to a page that renders.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor(SLOW);
    expect(await failure.count()).toBe(0);
    // Reported to the browser's console.
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.filter((problem) => !problem.startsWith('console: The governance console could not show this page: TypeError'))).toEqual([]);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview', exact: true }).click();
    await failure.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor(SLOW);
    expect(await storedCredentials(page)).toBeNull();
  });

  it("says so when the console's script cannot be loaded", async () => {
    const { page } = await open();
    await page.route('**/console/assets/*.js', (route) => route.abort());
    await page.goto(consoleUrl());
    const message = page.getByRole('alert');
    await message.filter({ hasText: 'The governance console did not start' }).waitFor({ state: 'visible', ...SLOW });
    expect(await message.getByRole('link', { name: 'Reload the page' }).count()).toBe(1);
  });
});

describe('tables fit', () => {
  /** Whether every header of the table is whole inside the table's box and the window once scrolled into view inside the box; the headers that are not. */
  async function unreachableHeaders(page: Page, width: number): Promise<string[]> {
    const table = page.getByRole('region', { name: 'policies' });
    const unreachable: string[] = [];
    for (const header of await table.locator('th').allTextContents()) {
      const cell = table.locator('th', { hasText: header });
      await cell.evaluate((element) =>
        (element as unknown as { scrollIntoView(options: object): void }).scrollIntoView({ block: 'nearest', inline: 'nearest' }),
      );
      const [box, frame] = [await cell.boundingBox(), await table.boundingBox()];
      if (!box || !frame || box.x < frame.x - 1 || box.x + box.width > frame.x + frame.width + 1 || frame.x + frame.width > width) unreachable.push(header);
    }
    return unreachable;
  }

  it('at 1280 x 900 every column of the policies list is visible, and reachable by scrolling the table with the assistant beside it', async () => {
    const { page, problems } = await open({ viewport: { width: 1280, height: 900 } });
    await openPolicies(page);
    const table = page.getByRole('region', { name: 'policies' });
    await table.locator('tbody tr').first().waitFor(SLOW);
    expect(await table.locator('th').allTextContents()).toEqual([
      'Name',
      'Status',
      'Version',
      'Resource type',
      'Environment',
      'Severity',
      'Engine',
      'Trigger',
      'Updated',
    ]);
    // Below 1440 px the assistant starts as a button: the list has the width, nothing to scroll.
    expect(await page.getByRole('complementary', { name: 'Assistant' }).isVisible()).toBe(false);
    expect(await table.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    expect(await unreachableHeaders(page, 1280)).toEqual([]);
    await screenshot(page, 'console-policies-1280x900');

    // Opened beside the page, the table scrolls inside its own box; the page itself does not.
    await openAssistant(page);
    expect(await unreachableHeaders(page, 1280)).toEqual([]);
    expect(await inPage(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    await screenshot(page, 'console-policies-1280x900-assistant');
    // The choice is kept for the tab: another page opens with the panel.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Metrics', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor(SLOW);
    expect(await page.getByRole('complementary', { name: 'Assistant' }).isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });
});

describe('a token link', () => {
  /** The page as served deployed: its meta says a token link asks first (lib/console/console-files.ts). */
  const servedDeployed = (page: Page) =>
    page.route(`${baseUrl}/console`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: (await response.text()).replace('content="sign-in"', 'content="ask"') });
    });

  it('deployed, asks before it replaces the credentials of a signed-in tab, whether opened in the tab or loaded anew', async () => {
    const { page, problems } = await open();
    await servedDeployed(page);
    const mine = await technicalToken({ sub: 'me' });
    const theirs = await technicalToken({ sub: 'someone-else' });
    // Not signed in: the link signs in.
    await page.goto(consoleUrl(mine));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(SLOW);
    expect(JSON.parse((await storedCredentials(page)) ?? '{}')).toEqual({ kind: 'bearer', token: mine });

    // Another token opened in the signed-in tab (the fragment changes): asked, nothing replaced, the token left the address.
    await page.goto(consoleUrl(theirs));
    const question = page.getByRole('heading', { level: 1, name: 'Sign in with this link?' });
    await question.waitFor(SLOW);
    expect(await page.locator('main').textContent()).toContain('for someone-else');
    expect(await page.locator('main').textContent()).toContain('as me');
    expect(page.url()).not.toContain('token=');
    expect(JSON.parse((await storedCredentials(page)) ?? '{}')).toEqual({ kind: 'bearer', token: mine });
    await page.getByRole('button', { name: 'Stay signed in as before' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(SLOW);
    expect(JSON.parse((await storedCredentials(page)) ?? '{}')).toEqual({ kind: 'bearer', token: mine });

    // Loaded anew in the same tab (its session kept): asked again; this time the person takes it.
    await page.goto('about:blank');
    await page.goto(consoleUrl(theirs));
    await question.waitFor(SLOW);
    await page.getByRole('button', { name: "Sign in with the link's token" }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(SLOW);
    expect(JSON.parse((await storedCredentials(page)) ?? '{}')).toEqual({ kind: 'bearer', token: theirs });
    expect(problems).toEqual([]);
  });

  it('locally, signs a signed-in tab in with the new token at once, as npm start means it', async () => {
    const { page, problems } = await open();
    await page.goto(consoleUrl(await technicalToken({ sub: 'first' })));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(SLOW);
    const second = await technicalToken({ sub: 'second' });
    await page.goto(consoleUrl(second));
    await expect.poll(async () => JSON.parse((await storedCredentials(page)) ?? '{}'), SLOW).toEqual({ kind: 'bearer', token: second });
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(SLOW);
    expect(page.url()).toBe(`${baseUrl}/console#/overview`);
    expect(problems).toEqual([]);
  });
});
