import { rm } from 'node:fs/promises';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { FakeServer } from '../fakes/fake-server';
import { cgp, folderWith } from '../support/cgp';

// How cgp authenticates and pages, seen by a platform that records what it receives.

const exception = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  policyId: '11111111-1111-4111-8111-111111111111',
  resourceId: `urn:dp:${n}`,
  environment: null,
  reason: 'migrating',
  ticket: null,
  expiresAt: '2027-01-01T00:00:00.000Z',
  createdBy: 'gov',
  createdAt: '2026-11-01T00:00:00.000Z',
  requestedBy: 'gov',
  approvedBy: 'lead',
  active: true,
});

const TOTAL = 150;
const platform = new FakeServer((request) => {
  const offset = Number(request.query.offset);
  const data = Array.from({ length: Math.max(0, Math.min(100, TOTAL - offset)) }, (_, i) => exception(offset + i));
  return { status: 200, body: { data, meta: { pagination: { limit: 100, offset, total: TOTAL } } } };
});
let cwd: string;

beforeAll(async () => {
  await platform.start();
  cwd = folderWith({});
});
beforeEach(() => platform.reset());
afterAll(async () => {
  await platform.stop();
  await rm(cwd, { recursive: true, force: true });
});

const run = (args: string[], env: NodeJS.ProcessEnv) =>
  cgp(['exceptions', '--server', platform.url, ...args], { cwd, env: { CGP_TOKEN: '', CGP_USER: '', CGP_ACCESS_TOKEN: '', ...env } });

describe('cgp credentials and paging', () => {
  it('sends Basic credentials from CGP_USER and CGP_ACCESS_TOKEN, and reads every page', async () => {
    const listed = await run(['--policy', '11111111-1111-4111-8111-111111111111', '--active'], { CGP_USER: 'ci-bot', CGP_ACCESS_TOKEN: 's3cret' });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { data: unknown[] }).data).toHaveLength(TOTAL);
    expect(platform.requests.map((request) => [request.path, request.query])).toEqual([
      ['/v1/computational-governance/exceptions', { policyId: '11111111-1111-4111-8111-111111111111', active: 'true', limit: '100', offset: '0' }],
      ['/v1/computational-governance/exceptions', { policyId: '11111111-1111-4111-8111-111111111111', active: 'true', limit: '100', offset: '100' }],
    ]);
    expect(platform.requests[0].headers.authorization).toBe(`Basic ${Buffer.from('ci-bot:s3cret').toString('base64')}`);
  });

  it('prefers a bearer token: --token over CGP_TOKEN over Basic', async () => {
    await run([], { CGP_TOKEN: 'from-env', CGP_USER: 'ci-bot', CGP_ACCESS_TOKEN: 's3cret' });
    expect(platform.requests[0].headers.authorization).toBe('Bearer from-env');
    platform.reset();
    await run(['--token', 'from-flag'], { CGP_TOKEN: 'from-env' });
    expect(platform.requests[0].headers.authorization).toBe('Bearer from-flag');
  });

  it('refuses half of the Basic credentials before calling: exit 2', async () => {
    const half = await run([], { CGP_USER: 'ci-bot' });
    expect(half).toMatchObject({ code: 2, stderr: 'cgp: Basic authentication needs both CGP_USER and CGP_ACCESS_TOKEN\n' });
    expect(platform.requests).toEqual([]);
  });

  it('says so when the platform answers what the contract does not allow', async () => {
    platform.answer({ status: 200, body: { data: [{ id: 1 }], meta: { pagination: { limit: 100, offset: 0, total: 1 } } } });
    const odd = await run([], { CGP_TOKEN: 't' });
    expect(odd.code).toBe(2);
    expect(odd.stderr).toMatch(/^cgp: GET \/exceptions\?limit=100&offset=0 answered a body cgp does not understand: /);
  });
});
