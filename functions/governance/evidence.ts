import { createEvidenceEndpoint, getEvidenceEndpoint, getEvidencePackEndpoint, listEvidenceEndpoint } from '#lib/governance/evidence/endpoints';
import * as evidence from '#lib/governance/evidence/evidence-service';
import { governanceHandler } from '#lib/governance/governance-handler';
import { listBody } from '#lib/http/pagination';

export const createEvidencePack = governanceHandler(createEvidenceEndpoint, async ({ body, principal }, ctx) => {
  const pack = await evidence.requestEvidence(ctx, body, principal.subject);
  return { status: 202, body: pack, headers: { location: `/v1/computational-governance/evidence/${pack.evidenceId}` } };
});

export const listEvidencePacks = governanceHandler(listEvidenceEndpoint, async ({ query }, ctx) => {
  const { data, total } = await evidence.listEvidence(ctx, query.limit, query.offset);
  return { status: 200, body: listBody(data, query, total) };
});

export const getEvidencePack = governanceHandler(getEvidenceEndpoint, async ({ params }, ctx) => ({
  status: 200,
  body: await evidence.getEvidence(ctx, params.id),
}));

export const downloadEvidencePack = governanceHandler(getEvidencePackEndpoint, async ({ params, headers }, ctx) => {
  const { bytes, headers: answered, partial } = await evidence.packPart(ctx, params.id, headers.range);
  return { status: partial ? 206 : 200, bytes, headers: answered };
});
