import { type ChainBreak, type ChainedRecord, ChainVerifier } from '#lib/audit/audit-chain';
import { listAuditRecordsEndpoint } from '#lib/audit/endpoints';

import { type ApiAccess, ApiClient } from './api-client';

export interface AuditVerifyOptions {
  /** ISO date-times: the records recorded in [from, to). */
  readonly from?: string;
  readonly to?: string;
}

/** What `cgp audit verify` found: every record holds, or the first that does not. */
export type AuditVerdict =
  | { readonly verified: true; readonly count: number; readonly firstSeq?: number; readonly lastSeq?: number }
  | { readonly verified: false; readonly broken: ChainBreak; readonly record: ChainedRecord };

/**
 * `cgp audit verify`: reads the audit chain of the platform and recomputes it with
 * lib/audit/audit-chain.ts. From the start, the first record must link to the genesis hash; from
 * `from`, the first record's link is taken as given.
 */
export async function verifyAudit(options: AuditVerifyOptions & ApiAccess): Promise<AuditVerdict> {
  const verifier = new ChainVerifier(options.from === undefined);
  for await (const record of new ApiClient(options).lines(listAuditRecordsEndpoint, { query: { from: options.from, to: options.to } })) {
    const broken = verifier.add(record);
    if (broken) return { verified: false, broken, record };
  }
  return { verified: true, count: verifier.count, firstSeq: verifier.firstSeq, lastSeq: verifier.lastSeq };
}

/** The verdict in words: the count and range of seq, or which record breaks the chain and how. */
export function auditVerdictText(verdict: AuditVerdict): string {
  if (verdict.verified)
    return verdict.count === 0 ? 'verified 0 records\n' : `verified ${verdict.count} records (seq ${verdict.firstSeq}..${verdict.lastSeq})\n`;
  const { broken, record } = verdict;
  const wrong = [
    ...(broken.hashWrong ? ['its hash does not match its content (the record or its hash was changed)'] : []),
    ...(broken.linkWrong
      ? [`its previousHash does not match the hash of the record before it (${broken.expectedPreviousHash}): a record before it was changed, removed or forged`]
      : []),
  ];
  return `audit chain broken at seq ${broken.seq}: ${wrong.join('; and ')}\n${JSON.stringify(record)}\n`;
}
