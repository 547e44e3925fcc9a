import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { GENESIS_HASH, hashOf } from '#lib/audit/audit-chain';

import { chainOf, verifyLinks as verify } from '../support/audit-links';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the audit chain hash', () => {
  it('is SHA-256 of the RFC 8785 canonical JSON of { seq, recordedAt, record, previousHash }', () => {
    const link = { seq: 7, recordedAt: '2026-01-01T00:00:00.123Z', record: { subject: 'alice', durationMs: 12, method: 'POST' }, previousHash: GENESIS_HASH };
    expect(hashOf(link)).toBe(
      sha256(
        `{"previousHash":"${'0'.repeat(64)}","record":{"durationMs":12,"method":"POST","subject":"alice"},"recordedAt":"2026-01-01T00:00:00.123Z","seq":7}`,
      ),
    );
  });

  it('does not depend on key order or number spelling, as jsonb gives them back', () => {
    const link = { seq: 1, recordedAt: '2026-01-01T00:00:00.000Z', record: { b: 1.0, a: [1e2, 'x'] }, previousHash: GENESIS_HASH };
    const readBack = {
      previousHash: GENESIS_HASH,
      record: JSON.parse('{"a": [100, "x"], "b": 1}') as Record<string, unknown>,
      recordedAt: link.recordedAt,
      seq: 1,
    };
    expect(hashOf(readBack)).toBe(hashOf(link));
    expect(hashOf({ ...link, seq: 2 })).not.toBe(hashOf(link));
  });
});

describe('ChainVerifier', () => {
  it('counts a chain that holds, and its range of seq', () => {
    expect(verify(chainOf(5))).toEqual({ count: 5, firstSeq: 1, lastSeq: 5 });
    expect(verify([])).toEqual({ count: 0, firstSeq: undefined, lastSeq: undefined });
  });

  it('names the first record whose content changed, and the next one when its hash was recomputed too', () => {
    const links = chainOf(5);
    const changed = { ...links[2], record: { subject: 'mallory', status: 201 } };
    expect(verify([...links.slice(0, 2), changed, ...links.slice(3)])).toEqual({
      seq: 3,
      hashWrong: true,
      linkWrong: false,
      expectedPreviousHash: links[1].hash,
    });
    const forged = { ...changed, hash: hashOf(changed) };
    expect(verify([...links.slice(0, 2), forged, ...links.slice(3)])).toEqual({ seq: 4, hashWrong: false, linkWrong: true, expectedPreviousHash: forged.hash });
  });

  it('from the start, the first record links to 64 zeros; from mid-chain, its link is taken as given', () => {
    const links = chainOf(4);
    expect(verify(links.slice(2))).toMatchObject({ seq: 3, linkWrong: true, expectedPreviousHash: GENESIS_HASH });
    expect(verify(links.slice(2), false)).toEqual({ count: 2, firstSeq: 3, lastSeq: 4 });
  });
});
