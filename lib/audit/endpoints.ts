import { endpoint } from '#lib/http/endpoint';

import { auditQuery, chainedRecord } from './audit-schemas';

export const listAuditRecordsEndpoint = endpoint({
  operationId: 'listAuditRecords',
  access: { permission: 'audit:read', scope: 'everywhere' },
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
