import { endpoint } from '#lib/http/endpoint';
import { listOf, paginationQuery } from '#lib/http/pagination';

import { evidenceId, evidenceInput, evidencePack } from './evidence';

/** Evidence is the audit trail's: the auditors' and admins' (docs/authorization.md). */
const AUDITORS = { permission: 'audit:read', scope: 'everywhere' } as const;
const tags = ['evidence'];

export const createEvidenceEndpoint = endpoint({
  operationId: 'createEvidencePack',
  access: AUDITORS,
  method: 'POST',
  path: '/v1/computational-governance/evidence',
  summary:
    'Ask for an evidence pack: what was enforced, on which resources, with which exceptions and approvals, at a past moment, ' +
    'with the audit stretch that proves it, signed (docs/evidence.md); built in the background',
  tags,
  body: evidenceInput,
  responses: {
    202: { description: 'Asked for; Location names its status', schema: evidencePack },
    400: { description: 'A field is wrong: `at` in the future or older than the history kept, an unknown environment or resource type' },
  },
});

export const listEvidenceEndpoint = endpoint({
  operationId: 'listEvidencePacks',
  access: AUDITORS,
  method: 'GET',
  path: '/v1/computational-governance/evidence',
  summary: 'The evidence packs asked for, newest first',
  tags,
  query: paginationQuery,
  responses: { 200: { description: 'A page of packs', schema: listOf(evidencePack, 'EvidencePackList') } },
});

export const getEvidenceEndpoint = endpoint({
  operationId: 'getEvidencePack',
  access: AUDITORS,
  method: 'GET',
  path: '/v1/computational-governance/evidence/{id}',
  summary: 'An evidence pack: its status (pending, running, completed, failed), its scope, and its summary counts once completed',
  tags,
  params: evidenceId,
  responses: { 200: { description: 'The pack', schema: evidencePack }, 404: { description: 'No pack has this id' } },
});

export const getEvidencePackEndpoint = endpoint({
  operationId: 'downloadEvidencePack',
  access: AUDITORS,
  method: 'GET',
  path: '/v1/computational-governance/evidence/{id}/pack',
  summary:
    'The pack, a zip. Answers a `Range: bytes=a-b` with 206; a pack larger than one answer (4 MiB) comes in parts: ' +
    'without a Range, 206 with the first part and Content-Range naming the whole size',
  tags,
  params: evidenceId,
  responses: {
    200: { description: 'The whole zip', mediaType: 'application/zip' },
    206: { description: 'A part of the zip (Content-Range: bytes a-b/size)', mediaType: 'application/zip' },
    404: { description: 'No pack has this id' },
    409: { description: 'The pack is not completed' },
    416: { description: 'The Range is not within the zip' },
  },
});
