import { randomUUID } from 'node:crypto';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { EvaluationReport, EvaluationResult } from '#lib/governance/evaluation/report';

import { FakeServer } from '../fakes/fake-server';
import { screenshot, signedInConsole, VIEWPORTS } from '../support/browser';
import { serviceCall } from '../support/governance-api';

const API = '/v1/computational-governance';
/** What the console shows after a call to the API: a busy machine may take seconds. */
const SLOW = { timeout: 15_000 };

const marker = randomUUID().slice(0, 8);
/** Resource types of this file alone: a publish evaluates their resources, one passing and one failing. */
const TYPE = `resources-${marker}`;
const SLOW_TYPE = `resources-slow-${marker}`;
const PASSING = `urn:${marker}:passing`;
const FAILING = `urn:${marker}:failing`;

const report = (id: string) => serviceCall<EvaluationReport>('GET', `${API}/evaluation-reports/${id}`);

/** The resources of both types; the slow type's pages after the first wait for `release` (its report stays running). */
let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => (release = resolve));
const resolver = new FakeServer(async (request) => {
  const all = [
    { id: PASSING, content: `id: ${PASSING}\nowner: alice\n` },
    { id: FAILING, content: `id: ${FAILING}\nowner: Nobody\n` },
  ];
  const offset = Number(request.query.offset);
  if (request.path === '/slow' && offset > 0) await released;
  const resources = all.slice(offset, offset + Number(request.query.limit));
  return { status: 200, body: { resources, page: { offset, limit: Number(request.query.limit), total: all.length } } };
});

/** A CUE policy of `type` in development, published: its report id. */
async function published(type: string, path: string, name: string) {
  await serviceCall('POST', `${API}/resource-types`, {
    name: type,
    configuration: { resourceName: 'id', batchSize: 1 },
    resolverConfiguration: { url: resolver.url, path },
  });
  const policy = await serviceCall<{ id: string }>('POST', `${API}/policies`, {
    name,
    resourceType: type,
    environment: 'development',
    engine: 'cue',
    cueScript: 'owner: string & =~"^[a-z]+$"\n',
  });
  const { evaluationReportId } = await serviceCall<{ evaluationReportId: string }>('POST', `${API}/policies/${policy.id}/publish`, {});
  return { policyId: policy.id, reportId: evaluationReportId };
}

/** Until the report has ended (polled for up to a minute). */
async function ended(reportId: string): Promise<void> {
  for (let poll = 0; poll < 120 && (await report(reportId)).status !== 'completed'; poll++) await new Promise((resolve) => setTimeout(resolve, 500));
}

let finished: { policyId: string; reportId: string };
let running: { policyId: string; reportId: string };

beforeAll(async () => {
  await resolver.start();
  finished = await published(TYPE, '/done', `Owner is a login ${marker}`);
  running = await published(SLOW_TYPE, '/slow', `Owner is a login, slowly ${marker}`);
  await ended(finished.reportId);
}, 90_000);

afterAll(async () => {
  release();
  await resolver.stop();
});

const signedIn = signedInConsole();

/** The cells of a table of the page, row by row. */
const cells = (page: Page, region: string) =>
  page
    .getByRole('region', { name: region })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));

/** The report component's status (its progress bar's label) and its count, `2 of 2 resources`. */
const progressLabel = (page: Page) => page.locator('.report .progress label').textContent();
const progressCount = (page: Page) => page.locator('.report .progress span').textContent();

describe('the Resources page', () => {
  it("lists the newest results a page of the API at a time, filters by outcome and opens a failing resource's errors in full", async () => {
    const { page, problems } = await signedIn(`#/resources?resourceType=${TYPE}`);
    await page.getByRole('heading', { level: 1, name: 'Resources' }).waitFor();
    await expect.poll(async () => (await cells(page, 'Resources')).length, SLOW).toBe(2);
    const policyName = `Owner is a login ${marker}`;
    // The policy's name arrives after the page (one call per policy shown).
    await expect
      .poll(async () => (await cells(page, 'Resources')).map((row) => [row[0], row[1], row[3], row[4]]).sort(), SLOW)
      .toEqual([
        [FAILING, 'development', `${policyName} v1`, 'error'],
        [PASSING, 'development', `${policyName} v1`, 'ok'],
      ]);
    await screenshot(page, 'console-resources');

    await page.getByLabel('Outcome').selectOption('error');
    await expect.poll(() => page.evaluate('location.hash'), SLOW).toBe(`#/resources?resourceType=${TYPE}&outcome=error`);
    await expect.poll(async () => (await cells(page, 'Resources')).length, SLOW).toBe(1);
    const api = await serviceCall<{ data: EvaluationResult[] }>('GET', `${API}/results?latest=true&resourceType=${TYPE}&outcome=error`);
    expect(api.data.map((result) => result.resource.id)).toEqual([FAILING]);
    expect((await cells(page, 'Resources'))[0][0]).toBe(FAILING);

    await page.getByRole('link', { name: FAILING }).click();
    await page.getByRole('heading', { level: 1, name: 'Resource' }).waitFor();
    const results = page.getByRole('region', { name: 'Results per policy' });
    await results.waitFor(SLOW);
    const [failing] = api.data;
    expect(failing.result.errors.length).toBeGreaterThan(0);
    expect(await results.locator('.result-errors pre').allTextContents()).toEqual(failing.result.errors);
    const policyLink = results.getByRole('link', { name: `${policyName} v1` });
    await policyLink.waitFor(SLOW);
    expect(await policyLink.getAttribute('href')).toBe(`#/policies/${finished.policyId}`);
    await screenshot(page, 'console-resource');
    expect(problems).toEqual([]);
  });

  it('works on a phone screen', async () => {
    const { page, problems } = await signedIn(`#/resources/development/${encodeURIComponent(FAILING)}`, { viewport: VIEWPORTS.phone });
    await page.getByRole('region', { name: 'Results per policy' }).locator('.result-errors pre').first().waitFor(SLOW);
    expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await screenshot(page, 'console-resource-phone');
    expect(problems).toEqual([]);
  });
});

describe('the report page', () => {
  it('shows a finished report: its status, full progress, counts and results', async () => {
    const api = await report(finished.reportId);
    const { page, problems } = await signedIn(`#/reports/${finished.reportId}`);
    await page.getByRole('heading', { level: 1, name: 'Evaluation report' }).waitFor();
    await expect.poll(() => progressLabel(page), SLOW).toBe('Report completed');
    expect(api.progress).toMatchObject({ done: 2, total: 2 });
    expect(await progressCount(page)).toBe(`${api.progress.done} of ${api.progress.total} resources`);
    expect([api.counts.ok, api.counts.error]).toEqual([1, 1]);
    expect(await page.locator('.verdict').textContent()).toMatch(new RegExp(`^Not passed: ${api.counts.ok} ok, .* ${api.counts.error} error,`));
    await expect
      .poll(async () => (await cells(page, 'Results')).map((row) => [row[0], row[2]]).sort(), SLOW)
      .toEqual(api.evaluationResults.map((result) => [result.resource.id, result.outcome]).sort());
    expect(await page.getByRole('region', { name: 'Results' }).getByRole('link', { name: FAILING }).getAttribute('href')).toBe(
      `#/resources/development/${encodeURIComponent(FAILING)}`,
    );
    await screenshot(page, 'console-report');
    expect(problems).toEqual([]);
  });

  it('follows a running report live until it ends', async () => {
    // The resolver holds the pages after the first: the report runs until release().
    await expect.poll(async () => (await report(running.reportId)).status, { timeout: 30_000, interval: 250 }).toBe('running');
    const before = await report(running.reportId);
    expect(before.progress.done).toBeLessThan(2);
    const { page, problems } = await signedIn(`#/reports/${running.reportId}`);
    await expect.poll(() => progressCount(page), SLOW).toBe(`${before.progress.done} of ${before.progress.total} resources`);
    expect(await progressLabel(page)).toMatch(/^Report (pending|running)…$/);
    await screenshot(page, 'console-report-running');

    // The resolver answers the rest: the page reads the report again until it has ended.
    release();
    await expect.poll(() => progressLabel(page), { timeout: 60_000 }).toBe('Report completed');
    const after = await report(running.reportId);
    expect(await progressCount(page)).toBe(`${after.progress.done} of ${after.progress.total} resources`);
    expect(after.progress).toMatchObject({ done: 2, total: 2 });
    expect(problems).toEqual([]);
  });
});
