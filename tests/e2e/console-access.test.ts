import { randomUUID } from 'node:crypto';

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';

import type { RoleBinding } from '#lib/authorization/role-binding';

import { screenshot, signedInWithTokens } from '../support/browser';
import { serviceCall } from '../support/governance-api';
import { technicalToken } from '../support/tokens';

const API = '/v1/computational-governance';
/** What the console shows after a call to the API: a busy machine may take seconds. */
const SLOW = { timeout: 20_000 };

const marker = randomUUID().slice(0, 8);
const TYPE = `access-${marker}`;
const READER = `reader-${marker}`;
/** A subject with no role of its own: only the binding the admin adds gives it one. */
const BOUND = `bound-${marker}`;
let policyId = '';

beforeAll(async () => {
  await serviceCall('POST', `${API}/resource-types`, { name: TYPE, resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' } });
  ({ id: policyId } = await serviceCall<{ id: string }>('POST', `${API}/policies`, {
    name: `Readable ${marker}`,
    resourceType: TYPE,
    engine: 'cue',
    cueScript: 'owner: string\n',
  }));
});

/** A browser signed in with `token` by the link npm start prints, on the Overview; closed after the test. */
const signedInWith = signedInWithTokens();

/** Goes to a route of the signed-in console and waits for its heading. */
async function go(page: Page, route: string, heading: string) {
  await page.evaluate(`location.hash = ${JSON.stringify(route)}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor(SLOW);
}

const navigation = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
const who = (page: Page) => page.getByRole('banner').locator('.who').textContent();
/** The notes of the actions left out, by the permission they need. */
const withheld = (page: Page) =>
  page.locator('.withheld').evaluateAll((notes) => notes.map((note) => [note.getAttribute('data-permission'), note.textContent]));

/** The cells of a table of the page, row by row. */
const cells = (page: Page, region: string) =>
  page
    .getByRole('region', { name: region })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));

describe("the console offers only the caller's actions (GET /me)", () => {
  it('a reader sees their subject and roles, and no create, edit, publish, status or test control anywhere', async () => {
    const { page, problems } = await signedInWith(await technicalToken({ sub: READER, roles: ['reader'] }));
    expect(await who(page)).toBe(`Signed in as ${READER} reader`);
    expect(await navigation(page)).toEqual(['Overview', 'Policies', 'Metrics', 'Resources', 'Approvals']);

    await go(page, '#/policies', 'Policies');
    await page.getByRole('region', { name: 'policies' }).waitFor(SLOW);
    expect(await page.getByRole('link', { name: 'New policy' }).count()).toBe(0);

    await go(page, `#/policies/${policyId}`, 'Policy');
    await page.getByRole('heading', { level: 2, name: `Readable ${marker}` }).waitFor(SLOW);
    await page.getByRole('heading', { level: 2, name: 'Versions' }).waitFor(SLOW);
    expect(await page.getByRole('group', { name: 'Lifecycle' }).count()).toBe(0);
    for (const name of ['Publish', 'Enable', 'Start grace period', 'Test on the perimeter'])
      expect([name, await page.getByRole('button', { name, exact: true }).count()]).toEqual([name, 0]);
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(await withheld(page)).toEqual([
      ['policies:edit', 'Not offered: editing and testing (needs policies:edit; your roles: reader).'],
      ['policies:publish', 'Not offered: publishing and status moves (needs policies:publish; your roles: reader).'],
    ]);
    await screenshot(page, 'console-policy-reader');

    // The editor, reached by its address: the fields to read, no Save, no Test.
    await go(page, `#/policies/${policyId}/edit`, 'Policy editor');
    await page.getByLabel('Name', { exact: true }).waitFor(SLOW);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Test', exact: true }).count()).toBe(0);
    expect(await withheld(page)).toEqual([['policies:edit', 'Not offered: saving and testing (needs policies:edit; your roles: reader).']]);

    // The Access page is not in the navigation; reached by its address, it shows the reader's own access only.
    await go(page, '#/access', 'Access');
    await page.getByRole('heading', { level: 2, name: 'You' }).waitFor(SLOW);
    expect(await cells(page, 'Your roles')).toEqual([['reader', 'every one', 'every one', 'token']]);
    expect(await page.getByRole('heading', { name: 'Role bindings' }).count()).toBe(0);
    expect(await withheld(page)).toEqual([['role-bindings:manage', 'Not offered: the role bindings (needs role-bindings:manage; your roles: reader).']]);
    expect(problems).toEqual([]);
  });

  it('an admin sees the Access page, adds a binding that gives its subject the author role, and deletes it', async () => {
    const { page, problems } = await signedInWith(await technicalToken());
    expect(await who(page)).toBe('Signed in as test-caller admin');
    expect(await navigation(page)).toEqual(['Overview', 'Policies', 'Metrics', 'Resources', 'Approvals', 'Evidence', 'Access']);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Access' }).click();
    await page.getByRole('heading', { level: 1, name: 'Access' }).waitFor(SLOW);
    await page.getByRole('heading', { level: 2, name: 'Role bindings' }).waitFor(SLOW);

    // No role chosen: the API's field error, next to the roles.
    await page.getByLabel('Subjects (comma separated)').fill(`${BOUND}, other-${marker}`);
    await page.getByLabel('Resource types (comma separated; empty: every one)').fill(TYPE);
    await page.getByRole('button', { name: 'Add the binding' }).click();
    await page.locator('#binding-roles-error').waitFor(SLOW);
    expect(await page.locator('#binding-roles-error').textContent()).toBe('give at least one role');
    expect(await page.getByRole('group', { name: 'Roles' }).getAttribute('aria-invalid')).toBe('true');

    await page.getByRole('checkbox', { name: 'author' }).check();
    await page.getByRole('button', { name: 'Add the binding' }).click();
    const row = page.getByRole('region', { name: 'Role bindings' }).locator('tbody tr', { hasText: BOUND });
    await row.waitFor(SLOW);
    const stored = (await serviceCall<{ data: RoleBinding[] }>('GET', `${API}/role-bindings`)).data.find((binding) => binding.subjects.includes(BOUND));
    expect(stored).toMatchObject({
      subjects: [BOUND, `other-${marker}`],
      groups: [],
      roles: ['author'],
      resourceTypes: [TYPE],
      environments: null,
      source: 'api',
      createdBy: 'test-caller',
    });
    expect((await row.locator('td').allTextContents()).slice(0, 6)).toEqual([`${BOUND}, other-${marker}`, '—', 'author', TYPE, 'every one', 'api']);
    // The form is empty again for the next one.
    expect(await page.getByLabel('Subjects (comma separated)').inputValue()).toBe('');
    await screenshot(page, 'console-access');

    // The bound subject, whose token gives no role: author within TYPE, so it is offered writing policies.
    const bound = await signedInWith(await technicalToken({ sub: BOUND, roles: [] }));
    expect(await who(bound.page)).toBe(`Signed in as ${BOUND} author`);
    await go(bound.page, '#/policies', 'Policies');
    await bound.page.getByRole('link', { name: 'New policy' }).waitFor(SLOW);
    expect(await navigation(bound.page)).not.toContain('Access');
    expect(bound.problems).toEqual([]);

    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached', ...SLOW });
    expect((await serviceCall<{ data: RoleBinding[] }>('GET', `${API}/role-bindings`)).data.filter((binding) => binding.subjects.includes(BOUND))).toEqual([]);
    expect(problems).toEqual([]);
  });
});
