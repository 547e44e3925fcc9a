import { z } from 'zod';

import { wholeNumberQuery } from '#lib/http/query-values';

const instant = (name: string) =>
  z.iso
    .datetime({ offset: true, error: `${name} must be a date and time with its offset, such as 2026-01-31T00:00:00Z` })
    .transform((value) => new Date(value));

/** Which records of GET /audit: recorded in [from, to), after the seq `after` (the link rel="next" gives it). */
export const auditQuery = z
  .object({
    from: instant('from').optional().meta({ description: 'Records recorded at or after this instant' }),
    to: instant('to').optional().meta({ description: 'Records recorded before this instant' }),
    after: wholeNumberQuery('after', 0, Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: 'Only records after this seq: the rest of an answer that was cut (its Link header, rel="next", names it)' }),
  })
  .superRefine((query, context) => {
    if (query.from && query.to && query.to <= query.from) context.addIssue({ code: 'custom', path: ['to'], message: 'to must be later than from' });
  });

/** One line of GET /audit: a record of the chain and its hashes (lib/audit/audit-chain.ts). */
export const chainedRecord = z
  .object({
    seq: z.number().int(),
    recordedAt: z.string(),
    record: z.record(z.string(), z.unknown()).meta({
      description: 'timestamp, subject, method, path, status, durationMs, requestId, operationId, location (when the answer named one)',
    }),
    previousHash: z.string().meta({ description: 'The hash of the record before; 64 zeros for the first' }),
    hash: z.string().meta({ description: 'SHA-256 (hex) of the RFC 8785 canonical JSON of { seq, recordedAt, record, previousHash }' }),
  })
  .meta({ id: 'AuditRecord' });

/** A signed checkpoint of the chain (lib/audit/checkpoint-signature.ts). */
export const checkpoint = z
  .object({
    seq: z.number().int().meta({ description: 'The seq of the newest record when it was signed' }),
    hash: z.string().meta({ description: 'That record hash' }),
    signedAt: z.string(),
    keyId: z.string().meta({ description: 'The first 16 hex digits of the SHA-256 of the public key (DER) that verifies it' }),
    signature: z.string().meta({ description: 'base64 Ed25519 signature of the RFC 8785 canonical JSON of { seq, hash, signedAt, keyId }' }),
  })
  .meta({ id: 'AuditCheckpoint' });

/** Which checkpoints of GET /audit/checkpoints: after the cursor `after` (meta.next of the page before), at most `limit`. */
export const checkpointQuery = z.object({
  after: wholeNumberQuery('after', 0, Number.MAX_SAFE_INTEGER).default(0).meta({ description: 'meta.next of the page before' }),
  limit: wholeNumberQuery('limit', 1, 10_000).default(1000),
});

export const checkpointPage = z
  .object({
    publicKey: z.string().meta({ description: 'The Ed25519 public key (PEM, SPKI) that verifies the checkpoints this service signs' }),
    keyId: z.string(),
    checkpointIntervalSeconds: z.number().int().meta({ description: 'audit-chain.checkpoint-interval: how often the head is signed when it grew' }),
    data: z.array(checkpoint).meta({ description: 'Oldest first' }),
    meta: z.object({ next: z.number().int().nullable().meta({ description: 'The cursor of the next page (after), null on the last' }) }),
  })
  .meta({ id: 'AuditCheckpointPage' });
