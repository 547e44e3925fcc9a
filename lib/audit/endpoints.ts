import { endpoint } from '#lib/http/endpoint';

import { auditQuery, chainedRecord, checkpoint, checkpointPage, checkpointQuery } from './audit-schemas';

/** The audit trail is the auditors' and admins' (docs/authorization.md). */
const AUDITORS = { permission: 'audit:read', scope: 'everywhere' } as const;

export const listAuditRecordsEndpoint = endpoint({
  operationId: 'listAuditRecords',
  access: AUDITORS,
  method: 'GET',
  path: '/v1/computational-governance/audit',
  summary:
    'The audit chain, oldest first, as NDJSON: one record of a write call per line, each with its hash and the hash of the record ' +
    'before it (`npx cgp audit verify` checks them)',
  tags: ['audit'],
  query: auditQuery,
  responses: {
    200: {
      description: 'The records, one JSON object per line; when the answer is cut (4 MB), a Link header (rel="next") names the rest',
      schema: chainedRecord,
      mediaType: 'application/x-ndjson',
    },
  },
});

export const createCheckpointEndpoint = endpoint({
  operationId: 'createAuditCheckpoint',
  access: AUDITORS,
  method: 'POST',
  path: '/v1/computational-governance/audit/checkpoints',
  summary: "Sign the audit chain's head now (besides the schedule, audit-chain.checkpoint-interval), and send the checkpoint to the platform's audit receiver",
  tags: ['audit'],
  responses: {
    201: { description: 'The checkpoint', schema: checkpoint },
    409: { description: 'The chain is empty: there is nothing to sign' },
    503: { description: 'No signing key is configured (audit-chain.signing-key)' },
  },
});

export const listCheckpointsEndpoint = endpoint({
  operationId: 'listAuditCheckpoints',
  access: AUDITORS,
  method: 'GET',
  path: '/v1/computational-governance/audit/checkpoints',
  summary:
    'The signed checkpoints of the audit chain, oldest first, and the public key that verifies them (`npx cgp audit verify` checks the chain against them)',
  tags: ['audit'],
  query: checkpointQuery,
  responses: { 200: { description: 'A page of checkpoints', schema: checkpointPage } },
});
