import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { EvaluationReport } from '#lib/governance/evaluation/report';

import { FakeServer } from '../fakes/fake-server';
import { screenshot, signedInConsole, VIEWPORTS } from '../support/browser';
import { serviceCall } from '../support/governance-api';

const API = '/v1/computational-governance';
/** What the console shows after a call to the API: a busy machine may take seconds. */
const SLOW = { timeout: 20_000 };

const marker = randomUUID().slice(0, 8);
const TYPE = `editor-${marker}`;
const BROKEN = 'owner: string\nname: "unclosed\n';
const RULE = 'owner: string & =~"^[a-z]+$"\n';

/** The platform's resolver: 4 resources in qa, the third breaks the rule; it answers once the test has seen the report running. */
let releaseResolver: () => void = () => undefined;
const released = new Promise<void>((resolve) => (releaseResolver = resolve));
const RESOURCES = Array.from({ length: 4 }, (_, i) => ({ id: `dp-${i}`, content: `id: dp-${i}\nowner: ${i === 2 ? 'Nobody' : 'alice'}\n` }));
const resolver = new FakeServer(async (request) => {
  const offset = Number(request.query.offset);
  const limit = Number(request.query.limit);
  await released;
  return { status: 200, body: { resources: RESOURCES.slice(offset, offset + limit), page: { offset, limit, total: RESOURCES.length } } };
});

beforeAll(async () => {
  await resolver.start();
  await serviceCall('POST', `${API}/resource-types`, {
    name: TYPE,
    configuration: { resourceName: 'id', batchSize: 2 },
    resolverConfiguration: { url: resolver.url, path: '/resources' },
  });
});
afterAll(async () => {
  releaseResolver();
  await resolver.stop();
});

const signedIn = signedInConsole();

/** The CUE editor's text area (CodeMirror, in its shadow root: CSS locators pierce it). */
const editor = (page: Page) => page.locator('[data-editor="cueScript"] .cm-content');

/** Replaces the editor's text by typing, as a person does. */
async function typeScript(page: Page, script: string) {
  await editor(page).click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(script);
}

/** The lines of the editor that carry an error diagnostic (1-based). */
const linesWithErrors = (page: Page) =>
  page
    .locator('[data-editor="cueScript"] .cm-line')
    .evaluateAll((lines) => lines.flatMap((line, index) => (line.querySelector('.cm-lintRange-error') ? [index + 1] : [])));

/** The cells of a table of the page, row by row. */
const cells = (page: Page, region: string) =>
  page
    .getByRole('region', { name: region })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));

/** The names of the lifecycle group's buttons and links. */
const lifecycle = (page: Page) =>
  page
    .getByRole('group', { name: 'Lifecycle' })
    .locator('button, a')
    .evaluateAll((controls) => controls.map((control) => control.textContent));

describe('the policy editor', () => {
  it('shows a compile error at its line, saves the fixed script, tests it on a pasted descriptor, publishes it and follows the report to its results', async () => {
    const { page, problems } = await signedIn('#/policies/new');
    await page.getByRole('heading', { level: 1, name: 'New policy' }).waitFor(SLOW);
    await page.getByLabel('Name', { exact: true }).fill(`Owner is a login ${marker}`);
    await page.getByLabel('Resource type').fill(TYPE);
    await page.getByLabel('Environment (empty: every environment)').fill('qa');
    await typeScript(page, BROKEN);
    await page.getByRole('button', { name: 'Save' }).click();

    // The API's compile error: next to the field, and in the editor at the line the API names.
    const fieldError = page.locator('#cueScript-error');
    await fieldError.waitFor(SLOW);
    expect(await fieldError.textContent()).toMatch(/^CUE does not compile \(line 2\b/);
    await expect.poll(() => linesWithErrors(page), SLOW).toEqual([2]);
    expect(await page.locator('[data-editor="cueScript"] .cm-lint-marker-error').count()).toBe(1);
    expect(await page.getByRole('alert').first().textContent()).toContain('cueScript');
    await screenshot(page, 'console-editor-compile-error');

    // Fixed: saved as a draft, version 1; the page is the policy's editor now.
    await typeScript(page, RULE);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'version 1, draft' }).waitFor(SLOW);
    expect(page.url()).toMatch(/#\/policies\/[0-9a-f-]{36}\/edit\?saved=/);
    const id = /policies\/([0-9a-f-]{36})/.exec(page.url())?.[1];
    expect(await serviceCall('GET', `${API}/policies/${id}`)).toMatchObject({ cueScript: RULE, environment: 'qa', resourceType: TYPE, status: 'draft' });
    expect(await linesWithErrors(page)).toEqual([]);

    // Test on a pasted descriptor: a failing one shows its error, a passing one its verdict.
    const descriptor = page.getByLabel('Descriptor (YAML or JSON)');
    await descriptor.fill('id: dp-x\nowner: Nobody\n');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const verdict = page.locator('.entity-test .verdict');
    await verdict.filter({ hasText: 'Not passed' }).waitFor(SLOW);
    // The verdict comes with the report, its results with the next call.
    await expect.poll(() => cells(page, 'Results'), SLOW).toHaveLength(1);
    const failing = await cells(page, 'Results');
    expect(failing[0].slice(0, 3)).toEqual(['dp-x', 'qa', 'error']);
    expect(failing[0][4]).toMatch(/owner/);
    await descriptor.fill('{ "id": "dp-y", "owner": "alice" }');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await verdict.filter({ hasText: /^Passed/ }).waitFor(SLOW);
    await expect.poll(() => cells(page, 'Results'), SLOW).toEqual([['dp-y', 'qa', 'ok', '', '—']]);
    await screenshot(page, 'console-editor');
    if (process.env.CGP_README_IMAGES) {
      mkdirSync(path.resolve('docs', 'images'), { recursive: true });
      await page.locator('h1').evaluate((heading) => (heading as unknown as { blur(): void }).blur());
      copyFileSync(await screenshot(page, 'console-editor'), path.resolve('docs', 'images', 'console-editor.png'));
    }

    // The detail page: a draft offers only the moves the lifecycle allows from draft.
    await page.getByRole('link', { name: /version 1 \(draft\)/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Policy' }).waitFor(SLOW);
    await page.getByRole('group', { name: 'Lifecycle' }).waitFor(SLOW);
    expect(await lifecycle(page)).toEqual(['Edit', 'Start grace period', 'Enable', 'Publish']);
    expect(await page.locator('.version').count()).toBe(1);

    // Publish: the report runs while the resolver holds its answer: the bar shows the API's progress, not the end.
    await page.getByRole('button', { name: 'Publish' }).click();
    const progress = page.locator('.report progress');
    await page.getByText('Report running').waitFor(SLOW);
    const reportId = new URLSearchParams(page.url().split('?')[1]).get('report');
    expect(reportId).toEqual(expect.any(String));
    const readReport = () => serviceCall<EvaluationReport>('GET', `${API}/evaluation-reports/${reportId}`);
    await expect.poll(() => resolver.requests.length, SLOW).toBeGreaterThan(0);
    const running = await readReport();
    expect(running.status).toBe('running');
    await page.getByText(`${running.progress.done} of ${running.progress.total} resources`).waitFor(SLOW);
    const bar = () => progress.evaluate((element) => [(element as unknown as { value: number }).value, (element as unknown as { max: number }).max]);
    expect(await bar()).toEqual([running.progress.done, Math.max(running.progress.total, 1)]);
    expect(running.progress.done).toBeLessThan(RESOURCES.length);
    expect(await page.locator('.report .verdict').count()).toBe(0);
    await screenshot(page, 'console-policy-publishing');
    releaseResolver();
    await page.locator('.report .verdict').waitFor(SLOW);
    expect(await bar()).toEqual([4, 4]);
    expect(await page.getByText('4 of 4 resources').count()).toBe(1);
    const report = await readReport();
    expect(report).toMatchObject({ status: 'completed', cause: 'publish', passed: false, counts: { total: 4, ok: 3, error: 1 } });
    expect(await page.locator('.report .verdict').textContent()).toMatch(/^Not passed: 3 ok, 0 waived, 0 info, 0 warning, 1 error, 0 failed/);
    await expect.poll(() => cells(page, 'Results'), SLOW).toHaveLength(4);
    const results = await cells(page, 'Results');
    expect(results.map((row) => row.slice(0, 3)).sort()).toEqual(RESOURCES.map((resource, i) => [resource.id, 'qa', i === 2 ? 'error' : 'ok']));
    expect(results.find((row) => row[0] === 'dp-2')?.[4]).toMatch(/owner/);
    await screenshot(page, 'console-policy');

    // Enabled now: the moves from enabled, and editing makes a new version.
    await expect.poll(() => lifecycle(page), SLOW).toEqual(['Edit (new version)', 'Disable', 'Start grace period', 'Publish']);
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => lifecycle(page), SLOW).toEqual(['Edit (new version)', 'Enable', 'Publish']);
    expect(await serviceCall('GET', `${API}/policies/${id}`)).toMatchObject({ status: 'disabled', version: 1 });
    expect(problems).toEqual([]);
  });

  it('on a phone: the editor of a saved policy shows its script and fits the screen', async () => {
    const policy = await serviceCall<{ id: string }>('POST', `${API}/policies`, {
      name: `Phone ${marker}`,
      resourceType: TYPE,
      engine: 'cue',
      cueScript: RULE,
    });
    const { page, problems } = await signedIn(`#/policies/${policy.id}/edit`, { viewport: VIEWPORTS.phone });
    await page.getByRole('heading', { level: 1, name: 'Policy editor' }).waitFor(SLOW);
    await editor(page).getByText('owner').waitFor(SLOW);
    const box = await page.locator('[data-editor="cueScript"]').boundingBox();
    expect((box?.x ?? Infinity) + (box?.width ?? 0)).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    await screenshot(page, 'console-editor-phone');
    expect(problems).toEqual([]);
  });
});
