import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Page } from 'playwright-core';
import { afterEach, inject } from 'vitest';

import { technicalToken } from './tokens';

/** The screen sizes the console must work at. */
export const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** Screenshots of the browser tests (git-ignored; the README's images are copied from here by their tests). */
const SCREENSHOT_FOLDER = path.resolve('test-output', 'screenshots');

/** @sparticuz/chromium's flags, without the two that would switch off what the tests check (same-origin, mixed content). */
const WEAKENING = new Set(['--disable-web-security', '--allow-running-insecure-content']);
const CLOSED_NETWORK = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ConsoleBrowser {
  readonly page: Page;
  /**
   * What went wrong in the page: uncaught errors, Content-Security-Policy violations and console
   * errors other than the browser's note of a failed response (a 401 a test asks for).
   */
  readonly problems: string[];
  close(): Promise<void>;
}

export interface BrowserOptions {
  readonly viewport?: { width: number; height: number };
  /**
   * The browser's language. Absent: the machine's, as a person's browser has it (on a POSIX
   * machine, C.UTF-8, Chromium reports `en-US@posix`, which Intl refuses: the console must render
   * all the same). Only the README's screenshots pin one, so that they read the same everywhere.
   */
  readonly locale?: string;
}

/** A headless Chromium with a new empty profile, one page at `viewport` (desktop by default). */
export async function openBrowser({ viewport = VIEWPORTS.desktop, locale }: BrowserOptions = {}): Promise<ConsoleBrowser> {
  const context = await playwright.launchPersistentContext(mkdtempSync(path.join(tmpdir(), 'cgp-chromium-')), {
    executablePath: inject('chromiumPath'),
    args: [...chromium.args.filter((arg) => !WEAKENING.has(arg)), ...CLOSED_NETWORK],
    headless: true,
    viewport,
    ...(locale === undefined ? {} : { locale }),
    // The machine's time zone, as a person's browser has it.
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`))",
  });
  return { page, problems, close: () => context.close() };
}

/** Opens the assistant panel with its button of the top bar (closed at first below 1440 px); answers the panel. */
export async function openAssistant(page: Page) {
  await page.getByRole('button', { name: 'Assistant', exact: true }).click();
  const panel = page.getByRole('complementary', { name: 'Assistant' });
  await panel.waitFor();
  return panel;
}

/** Evaluates `expression` in the page (text: this project's TypeScript has no DOM types outside console/). */
export const inPage = <T>(page: Page, expression: string) => page.evaluate<T>(expression);

/** The console's address; with a token, the link `npm start` prints (signed in by the fragment). */
export const consoleUrl = (token?: string) => `${inject('baseUrl')}/console${token ? `#token=${encodeURIComponent(token)}` : ''}`;

/** A screenshot of the whole page into SCREENSHOT_FOLDER/<name>.png; answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  const file = path.join(SCREENSHOT_FOLDER, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Consoles signed in with the tokens a test gives, any number per test: `signedInWith(token, options?)`
 * opens a browser on the link `npm start` prints and waits for the Overview; every one closes after the test.
 */
export function signedInWithTokens(): (token: string, options?: BrowserOptions) => Promise<ConsoleBrowser> {
  const browsers: ConsoleBrowser[] = [];
  afterEach(async () => {
    await Promise.all(browsers.splice(0).map((browser) => browser.close()));
  });
  return async (token, options) => {
    const browser = await openBrowser(options);
    browsers.push(browser);
    await browser.page.goto(consoleUrl(token));
    await browser.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor({ timeout: 20_000 });
    return browser;
  };
}

/**
 * A signed-in console for each test of a file: `signedIn(route, viewport?)` opens a browser on the
 * link `npm start` prints (an admin's token), waits for the Overview, then goes to `route`; the browser closes after the test.
 */
export function signedInConsole(): (route: string, options?: BrowserOptions) => Promise<ConsoleBrowser> {
  const signedInWith = signedInWithTokens();
  return async (route, options) => {
    const browser = await signedInWith(await technicalToken(), options);
    await browser.page.evaluate(`location.hash = ${JSON.stringify(route)}`);
    return browser;
  };
}
