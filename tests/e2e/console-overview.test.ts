import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ComplianceSummary, ComplianceTrend } from '#lib/governance/compliance/compliance';
import { OUTCOMES } from '#lib/governance/evaluation/outcome';

import { completion, FakeHostedModel, toolCalls } from '../fakes/hosted-model';
import { inPage, openAssistant, screenshot, signedInConsole, VIEWPORTS } from '../support/browser';
import { serviceCall } from '../support/governance-api';

const API = '/v1/computational-governance';
/** What the console shows after a call to the API: a busy machine may take seconds. */
const SLOW = { timeout: 15_000 };

const marker = randomUUID().slice(0, 8);
/** A resource type of this file alone: the numbers of other files' results do not move these. */
const TYPE = `overview-${marker}`;

const summaryOf = (query: Record<string, string>) => serviceCall<ComplianceSummary>('GET', `${API}/compliance/summary?${new URLSearchParams(query)}`);

const signedIn = signedInConsole();

/** The figure the Overview shows under `label` (Resources, Passing, Failing), without its percentage. */
const figure = async (page: Page, label: string) => Number((await page.locator(`.figures div:has(> dt:text-is("${label}")) dd`).textContent())?.split(' ')[0]);

/** The cells of a table of the page, row by row. */
const cells = (page: Page, region: string) =>
  page
    .getByRole('region', { name: region })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));

/** A passive policy of TYPE, enabled, with these results pushed (resource id -> satisfied). */
async function passivePolicy(name: string, severity: string, results: Record<string, boolean>, environment = 'development') {
  const { id } = await serviceCall<{ id: string }>('POST', `${API}/policies`, { name, resourceType: TYPE, severity, trigger: 'passive' });
  await serviceCall('POST', `${API}/policies/${id}/publish`, {});
  for (const [resource, satisfied] of Object.entries(results))
    await serviceCall('POST', `${API}/policies/${id}/results`, {
      environment,
      resource: { id: resource },
      satisfiesPolicy: satisfied,
      errors: satisfied ? [] : [`${name} is not met`],
    });
  return id;
}

const policyIds: Record<string, string> = {};

beforeAll(async () => {
  await serviceCall('POST', `${API}/resource-types`, { name: TYPE, resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' } });
  policyIds.owner = await passivePolicy(`Owner is set ${marker}`, 'error', { 'urn:a': true, 'urn:b': false, 'urn:c': false, 'urn:d': true });
  policyIds.contract = await passivePolicy(`Data contract ${marker}`, 'warning', { 'urn:a': false, 'urn:b': true, 'urn:c': true, 'urn:d': true });
  policyIds.production = await passivePolicy(`Encryption ${marker}`, 'error', { 'urn:a': true, 'urn:e': false }, 'production');
});

describe('the Overview', () => {
  it("shows the API's summary for the filters of the address, and the policies that fail most link to their pages", async () => {
    const { page, problems } = await signedIn(`#/overview?resourceType=${TYPE}`);
    await expect.poll(() => figure(page, 'Resources'), SLOW).toBe(6);
    const summary = await summaryOf({ resourceType: TYPE });
    // Six resources: development a-d, production a and e; b, c (owner) and e (encryption) fail.
    expect(summary.resources).toMatchObject({ total: 6, passing: 3, failing: 3 });
    expect([await figure(page, 'Resources'), await figure(page, 'Passing'), await figure(page, 'Failing')]).toEqual([
      summary.resources.total,
      summary.resources.passing,
      summary.resources.failing,
    ]);
    expect(await cells(page, 'Results by outcome')).toEqual(
      [...OUTCOMES].reverse().map((outcome) => [expect.stringMatching(new RegExp(`^${outcome}`)), String(summary.outcomes[outcome])]),
    );
    const failing = page.getByRole('region', { name: 'Policies that fail most' });
    expect(await failing.getByRole('link').evaluateAll((links) => links.map((link) => [link.textContent, link.getAttribute('href')]))).toEqual(
      summary.topFailingPolicies.map((entity) => [entity.name, `#/policies/${entity.id}`]),
    );
    expect(summary.topFailingPolicies.map((entity) => entity.id)).toEqual([policyIds.owner, policyIds.production, policyIds.contract]);
    expect(await cells(page, 'Per environment and resource type')).toEqual(
      summary.byEnvironmentAndResourceType.map((row) => [
        row.environment,
        row.resourceType,
        ...[row.resources.total, row.resources.passing, row.resources.failing].map(String),
      ]),
    );
    await screenshot(page, 'console-overview');
    if (process.env.CGP_README_IMAGES) {
      mkdirSync(path.resolve('docs', 'images'), { recursive: true });
      await page.getByRole('heading', { level: 1, name: 'Overview' }).evaluate((heading) => (heading as unknown as { blur(): void }).blur());
      copyFileSync(await screenshot(page, 'console-overview'), path.resolve('docs', 'images', 'console-overview.png'));
    }

    // An environment of the breakdown: its link filters the page, the numbers follow the API's.
    await page.getByRole('region', { name: 'Per environment and resource type' }).getByRole('link', { name: 'production' }).click();
    await expect.poll(() => figure(page, 'Resources'), SLOW).toBe(2);
    const production = await summaryOf({ resourceType: TYPE, environment: 'production' });
    expect([await figure(page, 'Passing'), await figure(page, 'Failing')]).toEqual([production.resources.passing, production.resources.failing]);
    expect(await page.getByLabel('Environment', { exact: true }).inputValue()).toBe('production');
    expect(problems).toEqual([]);
  });

  it("draws the trend with uPlot, one point a day of the API's trend, today's equal to the summary", async () => {
    const { page, problems } = await signedIn(`#/overview?resourceType=${TYPE}&days=7`);
    const chart = page.locator('figure.trend');
    await expect.poll(() => chart.getAttribute('data-points'), SLOW).toBe('7');
    const trend = await serviceCall<ComplianceTrend>('GET', `${API}/compliance/trend?resourceType=${TYPE}&days=7`);
    expect(trend.days).toHaveLength(7);
    expect(await chart.locator('.uplot canvas').count()).toBe(1);
    expect(await chart.locator('.uplot').boundingBox()).toMatchObject({ width: expect.any(Number), height: expect.any(Number) });
    expect(await inPage(page, "document.querySelector('.uplot canvas').width > 0")).toBe(true);
    // The same days in the chart's table; today (the last) is the summary now.
    await page.getByText('The days as a table').click();
    const rows = await cells(page, 'Compliance per day');
    expect(rows.map((row) => row[0])).toEqual(trend.days.map((day) => day.date));
    expect(rows.at(-1)).toEqual([trend.to, '6', '3', '3']);

    // Another length of the trend, chosen in the form.
    await page.getByLabel('Days of the trend').selectOption('30');
    await expect.poll(() => chart.getAttribute('data-points'), SLOW).toBe('30');
    expect(page.url()).toContain('days=30');
    expect(problems).toEqual([]);
  });

  it('shows a field the API refuses next to it', async () => {
    const { page } = await signedIn('#/overview?resourceType=Not%20a%20type');
    const field = page.getByLabel('Resource type', { exact: true });
    await expect.poll(() => field.getAttribute('aria-invalid'), SLOW).toBe('true');
    expect(await page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent()).toBe('resourceType must be the name of a resource type');
  });

  it('fits a 390 px phone screen', async () => {
    const { page, problems } = await signedIn(`#/overview?resourceType=${TYPE}`, { viewport: VIEWPORTS.phone });
    await expect.poll(() => figure(page, 'Resources'), SLOW).toBe(6);
    await page.locator('figure.trend[data-points]').waitFor();
    expect(await inPage(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    await screenshot(page, 'console-overview-phone');
    expect(problems).toEqual([]);
  });
});

describe('the assistant panel', () => {
  const fake = new FakeHostedModel();

  beforeAll(async () => {
    await fake.start();
    const config = (deployment: string, model: string) => ({
      provider: 'hosted_llm',
      api_key: 'console-key-0123456789',
      endpoint: fake.url,
      api_version: '2024-10-21',
      model,
      deployment,
    });
    await serviceCall('POST', '/assistant/v1/llm/config', config('console-chat', 'gpt-4o'));
    await serviceCall('POST', '/assistant/v1/embedder/config', config('console-embeddings', 'text-embedding-3-small'));
    await serviceCall('POST', '/assistant/v1/index/refresh', {});
  });

  afterAll(async () => {
    await fake.stop();
  });

  /** The text of the n-th question and answer of the panel. */
  const turn = (page: Page, index: number) => page.locator('.assistant-panel .turn').nth(index);

  it('answers a question with its sources as links to their pages, continues the conversation, and shows a drafted policy', async () => {
    const { page, problems } = await signedIn(`#/overview?resourceType=${TYPE}`);
    const panel = await openAssistant(page);
    fake.reset();
    fake.scriptChat(completion(`Owner is set ${marker} fails for urn:b and urn:c.`));
    await panel.getByLabel('Ask about policies, results, CUE').fill(`Which resources fail Owner is set ${marker}?`);
    await panel.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => turn(page, 0).locator('.answer p').first().textContent(), SLOW).toBe(`Owner is set ${marker} fails for urn:b and urn:c.`);
    const links = await turn(page, 0)
      .locator('.sources a')
      .evaluateAll((anchors) => anchors.map((anchor) => [anchor.textContent, anchor.getAttribute('href')]));
    // The policy's own page, and its results in the overview (the sources the API answered, as links).
    expect(links).toEqual(
      expect.arrayContaining([
        [`Owner is set ${marker}`, `#/policies/${policyIds.owner}`],
        [`Latest results of Owner is set ${marker}`, `#/overview?policyId=${policyIds.owner}`],
      ]),
    );
    await screenshot(page, 'console-assistant');

    // The link of the results: the overview of that policy alone, with the API's numbers.
    await turn(page, 0)
      .getByRole('link', { name: `Latest results of Owner is set ${marker}` })
      .click();
    await expect.poll(() => figure(page, 'Failing'), SLOW).toBe((await summaryOf({ policyId: policyIds.owner })).resources.failing);
    await expect.poll(() => page.getByRole('status').textContent()).toContain(`Owner is set ${marker}`);

    // A follow-up on another page: the same conversation (its earlier turn goes to the model).
    fake.reset();
    fake.scriptDrafts('owner!: string');
    fake.scriptChat(
      toolCalls({ name: 'draft_cue_policy', arguments: { requirement: 'names its owner', sampleDescriptor: '{"owner": "team-a"}' } }),
      completion('Here is a draft.'),
    );
    await panel.getByLabel('Ask a follow-up question').fill('Draft a policy for it');
    await panel.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => turn(page, 1).locator('.answer p').first().textContent(), SLOW).toBe('Here is a draft.');
    const firstTurn = fake.requests.find((request) => request.path.endsWith('/chat/completions'))?.body?.messages as { content: string }[];
    expect(firstTurn.map((message) => message.content)).toEqual(
      expect.arrayContaining([`Which resources fail Owner is set ${marker}?`, `Owner is set ${marker} fails for urn:b and urn:c.`]),
    );
    expect(await turn(page, 1).locator('.draft code').textContent()).toBe('owner!: string');
    expect(await turn(page, 1).locator('.draft figcaption').textContent()).toBe('Drafted policy (CUE, not saved): compiles; the sample satisfies it');

    // A new conversation starts empty and sends no conversationId.
    await panel.getByRole('button', { name: 'New conversation' }).click();
    await panel.getByLabel('Ask about policies, results, CUE').waitFor();
    expect(await page.locator('.assistant-panel .turn').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("shows the API's refusals: a question too long next to the field, a missing configuration (409) as its detail", async () => {
    const { page } = await signedIn('#/overview');
    const panel = await openAssistant(page);
    const field = panel.getByLabel('Ask about policies, results, CUE');
    await field.fill('x'.repeat(8001));
    await panel.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => panel.locator('#assistant-question-error').textContent(), SLOW).toMatch(/^query is longer than 8000 characters/);
    expect(await field.getAttribute('aria-describedby')).toBe('assistant-question-error');

    // The configurations are the platform's (other tests keep theirs): the 409 the API answers without them, as it writes it.
    const detail = 'The assistant needs an LLM and an embedder configuration before it can chat; missing: LLM configuration';
    await page.route('**/assistant/v1/llm/chat', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/problem+json',
        body: JSON.stringify({ type: 'about:blank', title: 'Conflict', status: 409, detail, missing: ['llm'] }),
      }),
    );
    await field.fill('Which policies fail?');
    await panel.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => panel.getByRole('alert').last().textContent(), SLOW).toBe(`Conflict ${detail}`);
  });
});
