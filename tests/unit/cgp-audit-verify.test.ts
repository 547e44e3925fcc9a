import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type ChainedRecord, GENESIS_HASH, hashOf } from '#lib/audit/audit-chain';
import { type Checkpoint, publicKeyPem, signCheckpoint, signingKeyOf } from '#lib/audit/checkpoint-signature';
import { auditVerdictText, checkpointsFileText, verifyAudit } from '#lib/cli/audit-command';

import { FakeServer } from '../fakes/fake-server';
import { chainOf } from '../support/audit-links';

// `cgp audit verify` against a platform that answers the chain in several answers and its signed
// checkpoints (the server's own side, and the command against serverless offline:
// tests/integration/audit-chain.test.ts, tests/integration/audit-checkpoints.test.ts, tests/e2e/cgp-audit.test.ts).

const AUDIT = '/v1/computational-governance/audit';
const CHECKPOINTS = `${AUDIT}/checkpoints`;
const platform = new FakeServer();
const key = signingKeyOf(randomBytes(32));
/** The chain's records are of 2026-01-01T00:00:0x; checkpoints are signed every minute: by 00:10 each record is old. */
const NOW = new Date('2026-01-01T00:10:00Z');

const ndjson = (links: ChainedRecord[], next?: string) => ({
  status: 200,
  body: links.map((link) => `${JSON.stringify(link)}\n`).join(''),
  headers: { 'content-type': 'application/x-ndjson', ...(next ? { link: `<${AUDIT}?${next}>; rel="next"` } : {}) },
});
const signed = (link: ChainedRecord, signer = key): Checkpoint => signCheckpoint(link, new Date(Date.parse(link.recordedAt) + 1000), signer);
const checkpointPage = (checkpoints: Checkpoint[]) => ({
  status: 200,
  body: {
    publicKey: publicKeyPem(key.publicKey),
    keyId: checkpoints[0]?.keyId ?? 'none',
    checkpointIntervalSeconds: 60,
    data: checkpoints,
    meta: { next: null },
  },
});
/** The chain with the record at `seq` changed and every hash from it on recomputed, as one who can write the table could. */
function rewritten(links: ChainedRecord[], seq: number): ChainedRecord[] {
  const result: ChainedRecord[] = [];
  for (const link of links) {
    const record = link.seq === seq ? { ...link.record, subject: 'mallory' } : link.record;
    const next = { seq: link.seq, recordedAt: link.recordedAt, record, previousHash: result.at(-1)?.hash ?? GENESIS_HASH };
    result.push({ ...next, hash: hashOf(next) });
  }
  return result;
}

beforeAll(() => platform.start());
beforeEach(() => platform.reset());
afterAll(() => platform.stop());

describe('cgp audit verify', () => {
  it('follows the Link header of an answer that was cut, counts every record and holds it against the checkpoints', async () => {
    const links = chainOf(5);
    platform.answer(checkpointPage([signed(links[2]), signed(links[4])]), ndjson(links.slice(0, 3), 'after=3'), ndjson(links.slice(3)));
    const verdict = await verifyAudit({ server: platform.url, token: 'auditor-token', now: NOW });
    expect(verdict).toEqual({ verified: true, count: 5, firstSeq: 1, lastSeq: 5, checkpoints: 2 });
    expect(auditVerdictText(verdict)).toBe('verified 5 records (seq 1..5) against 2 signed checkpoints\n');
    expect(platform.requests.map((request) => [request.path, request.query, request.headers.authorization])).toEqual([
      [CHECKPOINTS, { after: '0', limit: '10000' }, 'Bearer auditor-token'],
      [AUDIT, {}, 'Bearer auditor-token'],
      [AUDIT, { after: '3' }, 'Bearer auditor-token'],
    ]);
  });

  it('names the first record that does not hold, across answers', async () => {
    const links = chainOf(5);
    const changed = { ...links[3], record: { subject: 'mallory' } };
    platform.answer(checkpointPage([signed(links[4])]), ndjson(links.slice(0, 3), 'after=3'), ndjson([changed, links[4]]));
    const verdict = await verifyAudit({ server: platform.url, now: NOW });
    expect(verdict).toMatchObject({ verified: false, broken: { seq: 4, hashWrong: true, linkWrong: false }, record: changed });
    expect(auditVerdictText(verdict)).toMatch(/^audit chain broken at seq 4: its hash does not match its content.*\n\{"seq":4,/);
  });

  it('from a date, the first record links as it says; from the start, to 64 zeros and seq 1', async () => {
    const links = chainOf(4);
    platform.answer(checkpointPage([signed(links[3])]), ndjson(links.slice(2)));
    expect(await verifyAudit({ server: platform.url, from: '2026-01-01T00:00:03Z', now: NOW })).toEqual({
      verified: true,
      count: 2,
      firstSeq: 3,
      lastSeq: 4,
      checkpoints: 1,
    });
    expect(platform.requests[1].query).toEqual({ from: '2026-01-01T00:00:03Z' });
    platform.answer(checkpointPage([signed(links[3])]), ndjson(links.slice(2)));
    const verdict = await verifyAudit({ server: platform.url, now: NOW });
    expect(auditVerdictText(verdict)).toBe('audit chain broken at seq 1: records 1..2 are missing: removed from the chain (seq has no gaps)\n');
  });

  it('a gap in seq is a removed record, even when the links were forged around it', async () => {
    const links = chainOf(5);
    const around = rewritten([...links.slice(0, 2), ...links.slice(3)], 0);
    platform.answer(checkpointPage([]), ndjson(around));
    expect(auditVerdictText(await verifyAudit({ server: platform.url }))).toBe(
      'audit chain broken at seq 3: records 3..3 are missing: removed from the chain (seq has no gaps)\n',
    );
  });

  it('a stretch rewritten and re-hashed differs from the checkpoint that signed it', async () => {
    const links = chainOf(5);
    platform.answer(checkpointPage([signed(links[1]), signed(links[3])]), ndjson(rewritten(links, 3)));
    const verdict = await verifyAudit({ server: platform.url, now: NOW });
    expect(verdict).toMatchObject({ verified: false, seq: 4 });
    expect(auditVerdictText(verdict)).toMatch(
      /^audit chain broken at seq 4: its hash is not the one the checkpoint signed at .* holds: the chain was rewritten/,
    );
  });

  it('a missing tail: the chain ends before a checkpoint', async () => {
    const links = chainOf(5);
    platform.answer(checkpointPage([signed(links[4])]), ndjson(links.slice(0, 3)));
    expect(auditVerdictText(await verifyAudit({ server: platform.url, now: NOW }))).toBe(
      'audit chain broken at seq 4: the chain ends at seq 3, but a checkpoint signed seq 5: its tail was removed\n',
    );
  });

  it('checkpoints removed: records older than two intervals that no checkpoint covers; and a checkpoint the key did not sign', async () => {
    const links = chainOf(5);
    platform.answer(checkpointPage([signed(links[1])]), ndjson(links));
    expect(await verifyAudit({ server: platform.url, now: NOW })).toMatchObject({ verified: false, seq: 5 });
    // Fresh records are not yet due a checkpoint.
    platform.answer(checkpointPage([signed(links[1])]), ndjson(links));
    expect(await verifyAudit({ server: platform.url, now: new Date('2026-01-01T00:01:00Z') })).toMatchObject({ verified: true });

    const other = signingKeyOf(randomBytes(32));
    platform.answer(checkpointPage([signed(links[4], other)]), ndjson(links));
    expect(auditVerdictText(await verifyAudit({ server: platform.url, now: NOW }))).toMatch(
      /^audit chain broken at seq 5: the checkpoint signed at .* does not verify with the public key: it was forged or changed\n$/,
    );
  });

  it("the auditor's own key and copy of the checkpoints replace the platform's", async () => {
    const links = chainOf(5);
    const copy = checkpointsFileText([signed(links[4])].map((checkpoint) => JSON.stringify(checkpoint)).join('\n'));
    // The platform lost its checkpoints and the tail: the copy still proves it.
    platform.answer(checkpointPage([]), ndjson(links.slice(0, 4)));
    expect(await verifyAudit({ server: platform.url, now: NOW, checkpoints: copy, publicKey: publicKeyPem(key.publicKey) })).toMatchObject({
      verified: false,
      seq: 5,
    });
    // A key pinned by the auditor refuses the platform's checkpoints when another key signed them.
    platform.answer(checkpointPage([signed(links[4])]), ndjson(links));
    const pinned = publicKeyPem(signingKeyOf(randomBytes(32)).publicKey);
    expect(await verifyAudit({ server: platform.url, now: NOW, publicKey: pinned })).toMatchObject({ verified: false, seq: 5 });
  });

  it('refuses an answer it does not understand', async () => {
    platform.answer(checkpointPage([]), { status: 200, body: '{"seq": 1}\n', headers: { 'content-type': 'application/x-ndjson' } });
    await expect(verifyAudit({ server: platform.url })).rejects.toThrow(/GET \/audit answered a line cgp does not understand \(line 1\)/);
  });
});
