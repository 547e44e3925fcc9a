import { type ChainBreak, type ChainedRecord, ChainVerifier } from '#lib/audit/audit-chain';
import { type Checkpoint, checkpointHolds } from '#lib/audit/checkpoint-signature';
import { listAuditRecordsEndpoint, listCheckpointsEndpoint } from '#lib/audit/endpoints';

import { type ApiAccess, ApiClient } from './api-client';

export interface AuditVerifyOptions {
  /** ISO date-times: the records recorded in [from, to). */
  readonly from?: string;
  readonly to?: string;
  /** The public key (PEM) the checkpoints must verify with, as the auditor pinned it; else the platform's. */
  readonly publicKey?: string;
  /** The checkpoints as kept outside the platform's database (its audit receiver's copy); else the platform's. */
  readonly checkpoints?: readonly Checkpoint[];
  /** The time now (the newest records' age is measured against it). */
  readonly now?: Date;
}

/** What `cgp audit verify` found: every record holds, or the first that does not and why. */
export type AuditVerdict =
  | { readonly verified: true; readonly count: number; readonly firstSeq?: number; readonly lastSeq?: number; readonly checkpoints: number }
  | { readonly verified: false; readonly broken: ChainBreak; readonly record: ChainedRecord }
  | { readonly verified: false; readonly seq: number; readonly reason: string };

interface Checkpoints {
  readonly publicKey: string;
  readonly list: readonly Checkpoint[];
  readonly intervalMs: number;
}

/** The platform's checkpoints (every page) and key; the auditor's own key or copy replace them when given. */
async function checkpointsOf(client: ApiClient, options: AuditVerifyOptions): Promise<Checkpoints> {
  const list: Checkpoint[] = [];
  let after = 0;
  for (;;) {
    const { body } = await client.call(listCheckpointsEndpoint, { query: { after, limit: 10_000 } });
    list.push(...body.data);
    if (body.meta.next === null || options.checkpoints) {
      return { publicKey: options.publicKey ?? body.publicKey, list: options.checkpoints ?? list, intervalMs: body.checkpointIntervalSeconds * 1000 };
    }
    after = body.meta.next;
  }
}

/**
 * `cgp audit verify`: reads the audit chain of the platform and recomputes it with
 * lib/audit/audit-chain.ts, then holds it against the signed checkpoints (lib/audit/checkpoints.ts):
 * every checkpoint verifies with the public key; seq runs without a gap (from the start, from 1); the
 * record at each checkpoint's seq has the hash it signed (a stretch rewritten and re-hashed does not);
 * no checkpoint is past the chain's end (a missing tail); and a checkpoint covers every record older
 * than two checkpoint intervals (checkpoints removed). From `from`, the first record's link is taken as given.
 */
export async function verifyAudit(options: AuditVerifyOptions & ApiAccess): Promise<AuditVerdict> {
  const client = new ApiClient(options);
  const checkpoints = await checkpointsOf(client, options);
  const forged = checkpoints.list.find((checkpoint) => !checkpointHolds(checkpoint, checkpoints.publicKey));
  if (forged)
    return {
      verified: false,
      seq: forged.seq,
      reason: `the checkpoint signed at ${forged.signedAt} does not verify with the public key: it was forged or changed`,
    };
  const signed = new Map<number, Checkpoint[]>();
  for (const checkpoint of checkpoints.list) signed.set(checkpoint.seq, [...(signed.get(checkpoint.seq) ?? []), checkpoint]);
  const old = (options.now ?? new Date()).getTime() - 2 * checkpoints.intervalMs;

  const verifier = new ChainVerifier(options.from === undefined);
  let expected = options.from === undefined ? 1 : undefined;
  let lastOld: number | undefined;
  for await (const record of client.lines(listAuditRecordsEndpoint, { query: { from: options.from, to: options.to } })) {
    if (expected !== undefined && record.seq !== expected) {
      return { verified: false, seq: expected, reason: `records ${expected}..${record.seq - 1} are missing: removed from the chain (seq has no gaps)` };
    }
    const broken = verifier.add(record);
    if (broken) return { verified: false, broken, record };
    const differs = signed.get(record.seq)?.find((checkpoint) => checkpoint.hash !== record.hash);
    if (differs) {
      return {
        verified: false,
        seq: record.seq,
        reason: `its hash is not the one the checkpoint signed at ${differs.signedAt} holds: the chain was rewritten at or before it, and re-hashed`,
      };
    }
    if (Date.parse(record.recordedAt) < old) lastOld = record.seq;
    expected = record.seq + 1;
  }
  const lastSeq = verifier.lastSeq ?? 0;
  if (options.to === undefined) {
    const newest = Math.max(0, ...checkpoints.list.map((checkpoint) => checkpoint.seq));
    if (newest > lastSeq) {
      return { verified: false, seq: lastSeq + 1, reason: `the chain ends at seq ${lastSeq}, but a checkpoint signed seq ${newest}: its tail was removed` };
    }
    if (lastOld !== undefined && newest < lastOld) {
      return {
        verified: false,
        seq: lastOld,
        reason: `no signed checkpoint covers the records up to seq ${lastOld}, which are older than two checkpoint intervals: checkpoints were removed, or none is being signed`,
      };
    }
  }
  return { verified: true, count: verifier.count, firstSeq: verifier.firstSeq, lastSeq: verifier.lastSeq, checkpoints: checkpoints.list.length };
}

/** The verdict in words: the count and range of seq, or which record breaks the chain and how. */
export function auditVerdictText(verdict: AuditVerdict): string {
  if (verdict.verified) {
    const against = `against ${verdict.checkpoints} signed checkpoint${verdict.checkpoints === 1 ? '' : 's'}`;
    return verdict.count === 0
      ? `verified 0 records ${against}\n`
      : `verified ${verdict.count} records (seq ${verdict.firstSeq}..${verdict.lastSeq}) ${against}\n`;
  }
  if ('reason' in verdict) return `audit chain broken at seq ${verdict.seq}: ${verdict.reason}\n`;
  const { broken, record } = verdict;
  const wrong = [
    ...(broken.hashWrong ? ['its hash does not match its content (the record or its hash was changed)'] : []),
    ...(broken.linkWrong
      ? [`its previousHash does not match the hash of the record before it (${broken.expectedPreviousHash}): a record before it was changed, removed or forged`]
      : []),
  ];
  return `audit chain broken at seq ${broken.seq}: ${wrong.join('; and ')}\n${JSON.stringify(record)}\n`;
}

/** Checkpoints kept outside the platform: NDJSON (one per line, as an audit receiver stores them) or a JSON array. */
export function checkpointsFileText(text: string): Checkpoint[] {
  const trimmed = text.trim();
  const items: unknown[] = trimmed.startsWith('[')
    ? JSON.parse(trimmed)
    : trimmed
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
  return items.map((item) => {
    const { seq, hash, signedAt, keyId, signature } = item as Checkpoint;
    if (typeof seq !== 'number' || typeof hash !== 'string' || typeof signedAt !== 'string' || typeof keyId !== 'string' || typeof signature !== 'string')
      throw new Error(`the checkpoints file holds something that is not a checkpoint: ${JSON.stringify(item).slice(0, 200)}`);
    return { seq, hash, signedAt, keyId, signature };
  });
}
