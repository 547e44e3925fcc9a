import { randomUUID } from 'node:crypto';

import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import type { Approval } from '#lib/authorization/approval';

import { freePort } from '../../scripts/free-port';
import { type RunningOffline, startServerlessOffline } from '../../scripts/serverless-offline';
import { FakeServer } from '../fakes/fake-server';
import { type ConsoleBrowser, openBrowser, screenshot } from '../support/browser';
import { testSettingsFile } from '../support/settings-files';
import { technicalToken } from '../support/tokens';

/**
 * Four-eyes is a setting of the whole service (authorization.four-eyes.enabled), off under the
 * end-to-end server: a second serverless offline on the end-to-end database has it on, and a
 * binding of its application.conf makes an approver limited to another resource type.
 */
const API = '/v1/computational-governance';
/** What the console shows after a call to the API: a busy machine may take seconds. */
const SLOW = { timeout: 20_000 };

const marker = randomUUID().slice(0, 8);
const TYPE = `four-eyes-${marker}`;
const NAME = `Owner is a login ${marker}`;
const RULE = 'owner: string & =~"^[a-z]+$"\n';
const AUTHOR = `author-${marker}`;
const APPROVER = `approver-${marker}`;
/** An approver of another resource type only (application.conf): offered the buttons, refused by the API. */
const ELSEWHERE = `approver-elsewhere-${marker}`;

/** The platform's resolver: one resource in qa, which passes. */
const resolver = new FakeServer(() => ({
  status: 200,
  body: { resources: [{ id: 'fe-1', content: 'id: fe-1\nowner: alice\n' }], page: { offset: 0, limit: 100, total: 1 } },
}));
let offline: RunningOffline;
let policyId = '';

/** A call to this file's server as an admin (`subject`, test-caller by default); an answer that is not 2xx throws with its body. */
async function call<T>(method: string, route: string, body?: unknown, subject?: string): Promise<T> {
  const response = await fetch(`${offline.baseUrl}${API}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${await technicalToken(subject ? { sub: subject } : {})}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  await resolver.start();
  const configFile = testSettingsFile(`
    computational-governance-platform.database.schema = "e2e"
    computational-governance-platform.authorization {
      four-eyes.enabled = true
      bindings = [{ subjects = ["${ELSEWHERE}"], roles = ["approver"], resource-types = ["elsewhere-${marker}"] }]
    }
  `);
  offline = startServerlessOffline({
    httpPort: await freePort(),
    lambdaPort: await freePort(),
    env: { ...process.env, DATABASE_URL: inject('databaseUrl'), CGP_CONFIG_FILE: configFile, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  await offline.ready;
  // A setting of the service: under four-eyes, a request another admin approves.
  const { approvalId } = await call<{ approvalId: string }>('POST', '/resource-types', {
    name: TYPE,
    configuration: { resourceName: 'id' },
    resolverConfiguration: { url: resolver.url, path: '/resources' },
  });
  await call('POST', `/approvals/${approvalId}/approve`, {}, 'second-admin');
  ({ id: policyId } = await call<{ id: string }>('POST', '/policies', { name: NAME, resourceType: TYPE, environment: 'qa', engine: 'cue', cueScript: RULE }));
}, 180_000);

afterAll(async () => {
  await offline?.stop();
  await resolver.stop();
});

const browsers: ConsoleBrowser[] = [];
afterEach(async () => {
  await Promise.all(browsers.splice(0).map((browser) => browser.close()));
});

/** A browser signed in as `subject` with `roles` (the link npm start prints, on this file's server), at `route`. */
async function signedInAs(subject: string, roles: string[], route: string, heading: string): Promise<ConsoleBrowser> {
  const browser = await openBrowser();
  browsers.push(browser);
  await browser.page.goto(`${offline.baseUrl}/console#token=${encodeURIComponent(await technicalToken({ sub: subject, roles }))}`);
  await browser.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(SLOW);
  await go(browser.page, route, heading);
  return browser;
}

async function go(page: Page, route: string, heading: string) {
  await page.evaluate(`location.hash = ${JSON.stringify(route)}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor(SLOW);
}

/** The status the policy page shows for its newest version. */
const shownStatus = (page: Page) => page.locator('.entity-heading .status').textContent();
const readPolicy = () => call<{ status: string; version: number }>('GET', `/policies/${policyId}`);
const readApproval = (id: string) => call<Approval>('GET', `/approvals/${id}`);

/** The "Sent for approval" note of a change that became a request; the request's id, from its link. */
async function sentForApproval(page: Page, asked: string): Promise<string> {
  const note = page.getByRole('status').filter({ hasText: 'Sent for approval' });
  await note.waitFor(SLOW);
  expect(await note.textContent()).toBe(`Sent for approval: ${asked} waits for another person's decision; nothing changed yet. See the request`);
  const link = await note.getByRole('link', { name: 'See the request' }).getAttribute('href');
  expect(link).toMatch(/^#\/approvals\/[0-9a-f-]{36}$/);
  return link?.split('/').pop() ?? '';
}

/** The facts of a request's card (term → description). */
const facts = (card: ReturnType<Page['getByRole']>) =>
  card.locator('.facts > div').evaluateAll((rows) => Object.fromEntries(rows.map((row) => [row.children[0].textContent, row.children[1].textContent])));

/** The field changes of a request's card, row by row. */
const changes = (card: ReturnType<Page['getByRole']>) =>
  card.locator('table.changes tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));

describe('four-eyes in the console', () => {
  let publishRequest = '';

  it("an author's publish is sent for approval; another person approves it on the Approvals page, and the policy is enabled", async () => {
    const author = await signedInAs(AUTHOR, ['author'], `#/policies/${policyId}`, 'Policy');
    const { page } = author;
    await page.getByRole('group', { name: 'Lifecycle' }).getByRole('button', { name: 'Publish' }).click();
    publishRequest = await sentForApproval(page, 'publish version 1 (draft → enabled)');
    // Nothing changed: the page says draft still, no report was started.
    expect(await readApproval(publishRequest)).toMatchObject({ kind: 'publish', status: 'pending', requestedBy: AUTHOR, entity: { id: policyId } });
    expect(await readPolicy()).toMatchObject({ status: 'draft', version: 1 });
    expect(await shownStatus(page)).toBe('draft');
    expect(page.url()).not.toContain('report=');
    await screenshot(page, 'console-sent-for-approval');

    // The author's own request: its changes and patch, and no decision to make.
    await page.getByRole('link', { name: 'See the request' }).click();
    await page.getByRole('heading', { level: 1, name: 'Request for approval' }).waitFor(SLOW);
    const own = page.getByRole('article', { name: new RegExp(`^Publish: ${NAME}`) });
    await own.waitFor(SLOW);
    expect(await facts(own)).toMatchObject({ Policy: NAME, 'Requested by': AUTHOR, 'Resource type': TYPE, Environment: 'qa' });
    // The figures an approver decides on: the impact report started with the request (no version is live: never judged).
    await expect
      .poll(async () => (await facts(own))['Impact of version 1'], SLOW)
      .toBe('0 newly failing, 0 still failing, 0 newly passing, 0 still passing, 1 never judged');
    expect(await changes(own)).toContainEqual(['status', 'draft', 'enabled']);
    expect(await own.getByLabel(`Patch of ${NAME}`).textContent()).toContain(`+${RULE}`);
    expect(await own.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await own.getByRole('button', { name: 'Reject' }).count()).toBe(0);
    expect(await own.textContent()).toContain('Your request: another person decides it.');
    // The author may not decide anyone's requests: the Approvals page says so.
    await go(page, '#/approvals', 'Approvals');
    await page.getByRole('article', { name: new RegExp(`^Publish: ${NAME}`) }).waitFor(SLOW);
    expect(await page.locator('.withheld').textContent()).toBe('Not offered: approving and rejecting (needs approvals:decide; your roles: author).');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    // The approver: the pending requests by default, this one with its decision.
    const approver = await signedInAs(APPROVER, ['approver'], '#/approvals', 'Approvals');
    expect(await approver.page.getByLabel('Status').inputValue()).toBe('pending');
    const card = approver.page.getByRole('article', { name: new RegExp(`^Publish: ${NAME}`) });
    await card.waitFor(SLOW);
    expect(await facts(card)).toMatchObject({ Policy: NAME, Asked: 'publish version 1 (draft → enabled)', 'Requested by': AUTHOR });
    await screenshot(approver.page, 'console-approvals');
    await card.getByLabel('Comment (optional)').fill('The rule reads right');
    await card.getByRole('button', { name: 'Approve' }).click();
    await approver.page
      .getByRole('status')
      .filter({ hasText: `Approved: publish of ${NAME}.` })
      .waitFor(SLOW);
    // Decided, it leaves the pending requests.
    await card.waitFor({ state: 'detached', ...SLOW });
    const approved = await readApproval(publishRequest);
    expect(approved).toMatchObject({ status: 'approved', decidedBy: APPROVER, comment: 'The rule reads right', outcome: { version: 1 } });
    expect(await readPolicy()).toMatchObject({ status: 'enabled', version: 1 });

    // The decided ones: who, the comment, what it made (the publish's evaluation report).
    await approver.page.getByLabel('Status').selectOption('approved');
    const decided = approver.page.getByRole('article', { name: new RegExp(`^Publish: ${NAME}`) });
    await decided.waitFor(SLOW);
    expect(await facts(decided)).toMatchObject({
      'Decided by': APPROVER,
      Comment: 'The rule reads right',
      Outcome: 'version 1 is enabled (its evaluation report)',
    });
    const reportId = (approved.outcome as { evaluationReportId: string }).evaluationReportId;
    expect(await decided.getByRole('link', { name: 'its evaluation report' }).getAttribute('href')).toBe(`#/reports/${reportId}`);
    await decided.getByRole('link', { name: NAME, exact: true }).click();
    await approver.page.getByRole('heading', { level: 1, name: 'Policy' }).waitFor(SLOW);
    await expect.poll(() => shownStatus(approver.page), SLOW).toBe('enabled');
    // The approver neither edits nor publishes.
    expect(await approver.page.getByRole('group', { name: 'Lifecycle' }).count()).toBe(0);

    // The author's page, read again: enabled.
    await go(page, `#/policies/${policyId}`, 'Policy');
    await expect.poll(() => shownStatus(page), SLOW).toBe('enabled');
    expect(author.problems).toEqual([]);
    expect(approver.problems).toEqual([]);
  });

  it('a status move is a request too: an approver of another resource type is refused with the API’s reason, the approver rejects it and nothing changes', async () => {
    expect(publishRequest).not.toBe('');
    const author = await signedInAs(AUTHOR, ['author'], `#/policies/${policyId}`, 'Policy');
    await author.page.getByRole('group', { name: 'Lifecycle' }).getByRole('button', { name: 'Disable' }).click();
    const request = await sentForApproval(author.page, 'move version 1 from enabled to disabled');
    expect(await readApproval(request)).toMatchObject({ kind: 'status', status: 'pending', request: { version: 1, to: 'disabled' } });

    // Holding approvals:decide somewhere, the buttons are offered; the API refuses (403) and the page says why.
    const elsewhere = await signedInAs(ELSEWHERE, [], `#/approvals/${request}`, 'Request for approval');
    const offered = elsewhere.page.getByRole('article', { name: new RegExp(`^Status move: ${NAME}`) });
    await offered.getByRole('button', { name: 'Approve' }).click();
    const refusal = offered.getByRole('alert');
    await refusal.waitFor(SLOW);
    expect(await refusal.textContent()).toContain(`This needs the permission approvals:decide for resource type ${TYPE}, environment qa`);
    expect((await readApproval(request)).status).toBe('pending');

    const approver = await signedInAs(APPROVER, ['approver'], `#/approvals/${request}`, 'Request for approval');
    const card = approver.page.getByRole('article', { name: new RegExp(`^Status move: ${NAME}`) });
    await card.waitFor(SLOW);
    expect(await changes(card)).toContainEqual(['status', 'enabled', 'disabled']);
    await card.getByLabel('Comment (optional)').fill('Not before the audit');
    await card.getByRole('button', { name: 'Reject' }).click();
    await approver.page
      .getByRole('status')
      .filter({ hasText: `Rejected: status move of ${NAME}.` })
      .waitFor(SLOW);
    await expect.poll(() => facts(card), SLOW).toMatchObject({ 'Decided by': APPROVER, Comment: 'Not before the audit', Outcome: 'nothing changed' });
    expect(await card.getByRole('button', { name: 'Reject' }).count()).toBe(0);
    expect(await readApproval(request)).toMatchObject({ status: 'rejected', decidedBy: APPROVER, outcome: null });
    expect(await readPolicy()).toMatchObject({ status: 'enabled' });
    expect(author.problems).toEqual([]);
    expect(approver.problems).toEqual([]);
    // The refusal's failed response is the browser's note only; nothing else went wrong.
    expect(elsewhere.problems).toEqual([]);
  });
  it("an admin's new role binding is sent for approval; nothing is bound until another person approves it on the Approvals page", async () => {
    const alt = `alt-${marker}`;
    const admin = await signedInAs(`admin-${marker}`, ['admin'], '#/access', 'Access');
    const { page } = admin;
    await page.getByLabel('Subjects (comma separated)').fill(alt);
    await page.getByRole('group', { name: 'Roles' }).getByLabel('approver').check();
    await page.getByRole('button', { name: 'Add the binding' }).click();
    const requestId = await sentForApproval(page, `create the role-binding approver for ${alt}`);
    const bound = async () =>
      (await call<{ data: { subjects: string[] }[] }>('GET', '/role-bindings')).data.filter((binding) => binding.subjects.includes(alt)).length;
    expect(await bound()).toBe(0);

    const approver = await signedInAs(APPROVER, ['approver'], `#/approvals/${requestId}`, 'Request for approval');
    const card = approver.page.getByRole('article', { name: new RegExp(`^Role binding: approver for ${alt}`) });
    await card.waitFor(SLOW);
    expect(await facts(card)).toMatchObject({ 'Role binding': `approver for ${alt}`, 'Requested by': `admin-${marker}` });
    const roles = (await changes(card)).find(([field]) => field === 'roles');
    expect(roles?.[1]).toBe('—');
    expect(JSON.parse(roles?.[2] ?? 'null')).toEqual(['approver']);
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(bound, SLOW).toBe(1);
  });
});
