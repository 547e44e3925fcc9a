import { createHash } from 'node:crypto';

import canonicalize from 'canonicalize';

/** The previousHash of the first record of the chain. */
export const GENESIS_HASH = '0'.repeat(64);

/** One link of the audit chain, as stored in audit_records and as `GET /audit` answers it. */
export interface ChainedRecord {
  readonly seq: number;
  /** ISO 8601, millisecond precision (what timestamptz gives back unchanged). */
  readonly recordedAt: string;
  readonly record: Record<string, unknown>;
  readonly previousHash: string;
  readonly hash: string;
}

/**
 * SHA-256 (hex) of the RFC 8785 canonical JSON of `{ seq, recordedAt, record, previousHash }`:
 * key order and number spelling do not matter, so a record read back from jsonb hashes the same.
 */
export function hashOf(link: Omit<ChainedRecord, 'hash'>): string {
  const { seq, recordedAt, record, previousHash } = link;
  const canonical = canonicalize({ seq, recordedAt, record, previousHash });
  if (canonical === undefined) throw new Error('an audit record has no JSON form');
  return createHash('sha256').update(canonical).digest('hex');
}

/** The first record that does not hold: its own hash, its link to the record before it, or both. */
export interface ChainBreak {
  readonly seq: number;
  readonly hashWrong: boolean;
  readonly linkWrong: boolean;
  /** The hash its previousHash should be (the hash of the record before it). */
  readonly expectedPreviousHash: string;
}

/**
 * Checks records in chain order, one at a time (so a chain of any length needs no memory): each
 * hash recomputed, each previousHash against the record before. The first record links to
 * GENESIS_HASH, unless the reading starts mid-chain (`fromStart: false`): then its previousHash
 * is taken as given.
 */
export class ChainVerifier {
  count = 0;
  firstSeq: number | undefined;
  lastSeq: number | undefined;
  private previousHash: string | undefined;

  constructor(fromStart: boolean) {
    this.previousHash = fromStart ? GENESIS_HASH : undefined;
  }

  /** The break this record makes, or undefined when it holds (then it is counted). */
  add(link: ChainedRecord): ChainBreak | undefined {
    const expectedPreviousHash = this.previousHash ?? link.previousHash;
    const hashWrong = hashOf(link) !== link.hash;
    const linkWrong = link.previousHash !== expectedPreviousHash;
    if (hashWrong || linkWrong) return { seq: link.seq, hashWrong, linkWrong, expectedPreviousHash };
    this.count += 1;
    this.firstSeq ??= link.seq;
    this.lastSeq = link.seq;
    this.previousHash = link.hash;
    return undefined;
  }
}
