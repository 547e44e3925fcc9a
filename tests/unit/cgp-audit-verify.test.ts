import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { ChainedRecord } from '#lib/audit/audit-chain';
import { auditVerdictText, verifyAudit } from '#lib/cli/audit-command';

import { FakeServer } from '../fakes/fake-server';
import { chainOf } from '../support/audit-links';

// `cgp audit verify` against a platform that answers the chain in several answers (the server's
// own side, and the command against serverless offline: tests/integration/audit-chain.test.ts,
// tests/e2e/cgp-audit.test.ts).

const AUDIT = '/v1/computational-governance/audit';
const platform = new FakeServer();

const ndjson = (links: ChainedRecord[], next?: string) => ({
  status: 200,
  body: links.map((link) => `${JSON.stringify(link)}\n`).join(''),
  headers: { 'content-type': 'application/x-ndjson', ...(next ? { link: `<${AUDIT}?${next}>; rel="next"` } : {}) },
});

beforeAll(() => platform.start());
beforeEach(() => platform.reset());
afterAll(() => platform.stop());

describe('cgp audit verify', () => {
  it('follows the Link header of an answer that was cut, and counts every record', async () => {
    const links = chainOf(5);
    platform.answer(ndjson(links.slice(0, 3), 'after=3'), ndjson(links.slice(3)));
    const verdict = await verifyAudit({ server: platform.url, token: 'auditor-token' });
    expect(verdict).toEqual({ verified: true, count: 5, firstSeq: 1, lastSeq: 5 });
    expect(auditVerdictText(verdict)).toBe('verified 5 records (seq 1..5)\n');
    expect(platform.requests.map((request) => [request.path, request.query, request.headers.authorization])).toEqual([
      [AUDIT, {}, 'Bearer auditor-token'],
      [AUDIT, { after: '3' }, 'Bearer auditor-token'],
    ]);
  });

  it('names the first record that does not hold, across answers', async () => {
    const links = chainOf(5);
    const changed = { ...links[3], record: { subject: 'mallory' } };
    platform.answer(ndjson(links.slice(0, 3), 'after=3'), ndjson([changed, links[4]]));
    const verdict = await verifyAudit({ server: platform.url });
    expect(verdict).toMatchObject({ verified: false, broken: { seq: 4, hashWrong: true, linkWrong: false }, record: changed });
    expect(auditVerdictText(verdict)).toMatch(/^audit chain broken at seq 4: its hash does not match its content.*\n\{"seq":4,/);
  });

  it('from a date, the first record links as it says; from the start, to 64 zeros', async () => {
    const links = chainOf(4);
    platform.answer(ndjson(links.slice(2)));
    expect(await verifyAudit({ server: platform.url, from: '2026-01-01T00:00:03Z' })).toEqual({ verified: true, count: 2, firstSeq: 3, lastSeq: 4 });
    expect(platform.requests[0].query).toEqual({ from: '2026-01-01T00:00:03Z' });
    platform.answer(ndjson(links.slice(2)));
    const verdict = await verifyAudit({ server: platform.url });
    expect(auditVerdictText(verdict)).toMatch(/^audit chain broken at seq 3: its previousHash does not match the hash of the record before it \(0{64}\)/);
  });

  it('refuses an answer it does not understand', async () => {
    platform.answer({ status: 200, body: '{"seq": 1}\n', headers: { 'content-type': 'application/x-ndjson' } });
    await expect(verifyAudit({ server: platform.url })).rejects.toThrow(/GET \/audit answered a line cgp does not understand \(line 1\)/);
  });
});
