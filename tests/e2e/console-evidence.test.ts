import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';

import type { EvidencePack } from '#lib/governance/evidence/evidence';
import { type PackManifest, sha256, unzipPack } from '#lib/governance/evidence/pack-format';

import { screenshot, signedInWithTokens } from '../support/browser';
import { serviceCall } from '../support/governance-api';
import { technicalToken } from '../support/tokens';

// The Evidence page (docs/evidence.md): an auditor exports a pack of a moment and one resource type,
// follows it to completed and gets its zip; a reader is not offered it.

const API = '/v1/computational-governance';
/** What the console shows after a call to the API: a busy machine may take seconds. */
const SLOW = { timeout: 20_000 };
/** A pack goes through the queue and the evaluation worker. */
const BUILT = { timeout: 60_000 };

const marker = randomUUID().slice(0, 8);
/** The type the pack is limited to, and another whose policy it must leave out. */
const TYPE = `evidence-${marker}`;
const OTHER = `evidence-other-${marker}`;
const AUDITOR = `auditor-${marker}`;

/** A passive policy of `type`, enabled, with these results pushed in development (resource id -> satisfied). */
async function passivePolicy(type: string, results: Record<string, boolean>) {
  await serviceCall('POST', `${API}/resource-types`, { name: type, resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' } });
  const { id } = await serviceCall<{ id: string }>('POST', `${API}/policies`, { name: `Owner is set ${type}`, resourceType: type, trigger: 'passive' });
  await serviceCall('POST', `${API}/policies/${id}/publish`, {});
  for (const [resource, satisfied] of Object.entries(results))
    await serviceCall('POST', `${API}/policies/${id}/results`, {
      environment: 'development',
      resource: { id: resource },
      satisfiesPolicy: satisfied,
      errors: satisfied ? [] : ['no owner'],
    });
}

beforeAll(async () => {
  await passivePolicy(TYPE, { [`urn:${marker}:a`]: true, [`urn:${marker}:b`]: false });
  await passivePolicy(OTHER, { [`urn:${marker}:c`]: false });
});

/** A browser signed in with `token` by the link npm start prints, on the Overview; closed after the test. */
const signedInWith = signedInWithTokens();

const navigation = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

const pad = (value: number) => String(value).padStart(2, '0');
/** A moment as the date-time input holds it, in the machine's time zone (the browser's): Chromium leaves out seconds of 0. */
function localInput(date: Date): string {
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`.replace(/:00$/, '');
}

describe('the Evidence page', () => {
  it('is not offered to a reader: not in the navigation, and its address says what is missing', async () => {
    const { page, problems } = await signedInWith(await technicalToken({ sub: `reader-${marker}`, roles: ['reader'] }));
    expect(await navigation(page)).not.toContain('Evidence');
    await page.evaluate(`location.hash = '#/evidence'`);
    await page.getByRole('heading', { level: 1, name: 'Evidence' }).waitFor(SLOW);
    const withheld = page.locator('.withheld');
    await withheld.waitFor(SLOW);
    expect(await withheld.textContent()).toBe('Not offered: evidence packs (needs audit:read; your roles: reader).');
    expect(await page.getByRole('button', { name: 'Export' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('an auditor exports a pack of a moment and one resource type, follows it to completed and gets its zip; the list shows it', async () => {
    const { page, problems } = await signedInWith(await technicalToken({ sub: AUDITOR, roles: ['auditor'] }));
    expect(await navigation(page)).toContain('Evidence');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Evidence' }).click();
    await page.getByRole('heading', { level: 1, name: 'Evidence' }).waitFor(SLOW);
    const types = page.getByLabel('Resource types (none chosen: every one)');
    await types.locator('option', { hasText: OTHER }).waitFor({ state: 'attached', ...SLOW });
    await types.selectOption(TYPE);

    // A moment in the future: the API's 400, next to the field.
    const moment = page.getByLabel('Moment (your local time; empty: now)');
    await moment.fill(localInput(new Date(Date.now() + 86_400_000)));
    await page.getByRole('button', { name: 'Export' }).click();
    await page.locator('#evidence-at-error').waitFor(SLOW);
    expect(await page.locator('#evidence-at-error').textContent()).toMatch(/^at must not be in the future/);
    expect(await moment.getAttribute('aria-invalid')).toBe('true');

    // A moment after the results were pushed, to the second.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    await moment.fill(localInput(at));
    const download = page.waitForEvent('download', BUILT);
    await page.getByRole('button', { name: 'Export' }).click();
    await page.getByRole('status').filter({ hasText: 'Status: completed' }).waitFor(BUILT);
    expect(await page.locator('#evidence-at-error').count()).toBe(0);

    const saved = await download;
    expect(saved.suggestedFilename()).toBe(`evidence-${at.toISOString().replace(/[:.]/g, '-')}.zip`);
    const bytes = await readFile((await saved.path()) as string);
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    const manifest = JSON.parse(Buffer.from(unzipPack(bytes).get('manifest.json') as Uint8Array).toString('utf8')) as PackManifest;
    expect(new Date(manifest.at).getTime()).toBe(at.getTime());
    expect(manifest.scope).toEqual({ environments: null, resourceTypes: [TYPE] });
    expect(manifest.requestedBy).toBe(AUDITOR);
    expect(manifest.policies.map((policy) => policy.resourceType)).toEqual([TYPE]);

    const pack = await serviceCall<EvidencePack>('GET', `${API}/evidence/${manifest.evidenceId}`);
    expect(sha256(bytes)).toBe(pack.sha256);
    expect(pack.summary).toMatchObject({ policies: 1, verdicts: 2, resources: 2, failingResources: 1 });

    // The list: the pack, completed, with its scope, who asked, its counts and a Download.
    const row = page.getByRole('region', { name: 'Evidence packs' }).locator('tbody tr', { hasText: AUDITOR });
    await row.locator('td', { hasText: 'completed' }).waitFor(SLOW);
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1, 3)).toEqual([`every environment; ${TYPE}`, 'completed']);
    expect(cells[3]).toMatch(new RegExp(`^${AUDITOR}, `));
    expect(cells[4]).toMatch(/^1 policies, 2 verdicts, 2 resources \(1 failing\), /);
    const again = page.waitForEvent('download', SLOW);
    await row.getByRole('button', { name: /^Download the pack of / }).click();
    expect(sha256(await readFile((await (await again).path()) as string))).toBe(pack.sha256);
    await screenshot(page, 'console-evidence');
    expect(problems).toEqual([]);
  });
});
