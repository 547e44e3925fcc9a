import { randomUUID } from 'node:crypto';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FakeServer } from '../fakes/fake-server';
import { screenshot, signedInConsole } from '../support/browser';
import { serviceCall } from '../support/governance-api';

// The console's "Check impact" on a policy, and the date of a scheduled rollout, in a real browser.

const API = '/v1/computational-governance';
const SLOW = { timeout: 30_000 };
const marker = randomUUID().slice(0, 8);
const TYPE = `impact-${marker}`;

/** dp-n in qa has size 10 x n, owned by team-a (odd n) or team-b (even n). */
const resolver = new FakeServer((request) => {
  const all = Array.from({ length: 4 }, (_, i) => ({
    id: `dp-${i + 1}`,
    content: `id: dp-${i + 1}\nowner: team-${i % 2 ? 'b' : 'a'}\nsize: ${10 * (i + 1)}\n`,
  }));
  const offset = Number(request.query.offset);
  const resources = request.query.environment === 'qa' ? all : [];
  return {
    status: 200,
    body: { resources: resources.slice(offset, offset + Number(request.query.limit)), page: { offset, limit: Number(request.query.limit) } },
  };
});

const policy = (max: number) => ({ name: `Size is bounded ${marker}`, resourceType: TYPE, environment: 'qa', engine: 'cue', cueScript: `size: <=${max}\n` });
let bounded = '';
let rolledOut = '';
let banded = '';
const metric = (line: number) => ({
  name: `Size banded ${marker}`,
  resourceType: TYPE,
  environment: 'qa',
  engine: 'cue',
  cueScript: 'size: number\nvalue: size\n',
  thresholds: [
    { label: 'small', color: 'green', max: line },
    { label: 'large', color: 'red', min: line },
  ],
});

async function ended(reportId: string) {
  for (let poll = 0; poll < 240; poll++) {
    if ((await serviceCall<{ status: string }>('GET', `${API}/evaluation-reports/${reportId}`)).status === 'completed') return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`report ${reportId} did not complete`);
}

beforeAll(async () => {
  await resolver.start();
  await serviceCall('POST', `${API}/resource-types`, {
    name: TYPE,
    configuration: { resourceName: 'id', resourceOwnerField: 'owner', batchSize: 2 },
    resolverConfiguration: { url: resolver.url, path: '/resources' },
  });
  // Live: size <= 35 (dp-4 fails); the draft of version 2: size <= 15.
  bounded = (await serviceCall<{ id: string }>('POST', `${API}/policies`, policy(35))).id;
  await ended((await serviceCall<{ evaluationReportId: string }>('POST', `${API}/policies/${bounded}/publish`)).evaluationReportId);
  await serviceCall('PUT', `${API}/policies/${bounded}`, policy(15));
  // A metric live with the line at 25 (dp-1, dp-2 small), its draft moving it to 35 (dp-3 too).
  banded = (await serviceCall<{ id: string }>('POST', `${API}/metrics`, metric(25))).id;
  await ended((await serviceCall<{ evaluationReportId: string }>('POST', `${API}/metrics/${banded}/publish`)).evaluationReportId);
  await serviceCall('PUT', `${API}/metrics/${banded}`, metric(35));
  // Another policy in grace, with a rollout scheduled.
  rolledOut = (await serviceCall<{ id: string }>('POST', `${API}/policies`, { ...policy(50), name: `Rolled out ${marker}` })).id;
  await serviceCall('POST', `${API}/policies/${rolledOut}/status`, { status: 'grace' });
  await serviceCall('POST', `${API}/policies/${rolledOut}/rollout`, { enableAt: '2099-01-31T06:00:00Z' });
});
afterAll(() => resolver.stop());

const signedIn = signedInConsole();

const counts = (page: Page) =>
  page
    .locator('.impact-counts div')
    .evaluateAll((items) => Object.fromEntries(items.map((item) => [item.querySelector('dt')?.textContent, Number(item.querySelector('dd')?.textContent)])));

describe('the impact of a version in the console', () => {
  it('"Check impact" shows the counts, a bar per environment and the newly failing resources with their owners', async () => {
    const { page, problems } = await signedIn(`#/policies/${bounded}`);
    await page.getByRole('button', { name: 'Check impact' }).click(SLOW);
    await page.getByRole('status').filter({ hasText: 'Version 2 against live version 1' }).waitFor(SLOW);
    expect(await counts(page)).toEqual({ 'Newly failing': 2, 'Still failing': 1, 'Newly passing': 0, 'Still passing': 1, 'Never judged': 0 });
    expect(await page.getByRole('img', { name: /^qa: 2 newly failing, 1 still failing/ }).count()).toBe(1);
    const rows = await page
      .getByRole('region', { name: 'Newly failing resources' })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(0, 3).map((cell) => cell.textContent)));
    expect(rows).toEqual([
      ['dp-2', 'qa', 'team-b'],
      ['dp-3', 'qa', 'team-a'],
    ]);
    await screenshot(page, 'console-impact');
    expect(problems).toEqual([]);
  });

  it("a metric's impact shows how many resources move from one threshold to another", async () => {
    const { page, problems } = await signedIn(`#/metrics/${banded}`);
    await page.getByRole('button', { name: 'Check impact' }).click(SLOW);
    const moves = page.getByRole('region', { name: "Thresholds (the live version's to this version's)" });
    await moves.waitFor(SLOW);
    const rows = await moves.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
    expect(rows).toEqual([
      ['large', 'small', '1'],
      ['small', 'small', '2'],
      ['large', 'large', '1'],
    ]);
    expect(problems).toEqual([]);
  });

  it('shows the date a scheduled rollout enables the version', async () => {
    const { page, problems } = await signedIn(`#/policies/${rolledOut}`);
    const rollout = page.locator('.rollout');
    await rollout.waitFor(SLOW);
    expect(await rollout.textContent()).toMatch(/^Version 1 becomes enabled on .*2099.* \(dated rollout\)$/);
    expect(problems).toEqual([]);
  });
});
