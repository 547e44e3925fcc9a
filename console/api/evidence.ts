import type { createEvidenceEndpoint, getEvidenceEndpoint, getEvidencePackEndpoint, listEvidenceEndpoint } from '#lib/governance/evidence/endpoints';
import type { EvidenceInput } from '#lib/governance/evidence/evidence';

import type { PermissionOf } from './access';
import { ApiProblem, call, request } from './client';
import type { Answer } from './contracts';
import type { PageRequest } from './governance';
import { routes } from './routes';

/** An evidence pack (docs/evidence.md): its moment, scope, status, and once completed its summary counts, size and SHA-256. */
export type EvidencePack = Answer<typeof getEvidenceEndpoint>;
type EvidencePage = Answer<typeof listEvidenceEndpoint>;

/** What every evidence endpoint needs (held everywhere: the auditor and admin roles). */
export const READ_EVIDENCE = 'audit:read' satisfies PermissionOf<typeof createEvidenceEndpoint> &
  PermissionOf<typeof listEvidenceEndpoint> &
  PermissionOf<typeof getEvidenceEndpoint> &
  PermissionOf<typeof getEvidencePackEndpoint>;

/** The most one answer of GET /evidence/{id}/pack holds: the size of each part asked for. */
const PART_BYTES = 4 * 1024 * 1024;
const ZIP = 'application/zip';

/** Asks for a pack of the moment and scope (absent: now, every environment, every resource type); the 202's pack, pending. */
export const requestEvidence = (input: EvidenceInput): Promise<EvidencePack> => call(routes.createEvidencePack, { body: input });

/** The packs asked for, newest first, a page of them. */
export const listEvidence = (page: PageRequest, signal?: AbortSignal): Promise<EvidencePage> => call(routes.listEvidencePacks, { query: { ...page }, signal });

/** A pack's status (and once completed its summary). */
export const readEvidence = (id: string, signal?: AbortSignal): Promise<EvidencePack> => call(routes.getEvidencePack, { params: { id }, signal });

/**
 * The zip of a completed pack, asked for in parts of 4 MiB (a Range each) until Content-Range's size
 * is reached; a 200 is the whole. A part that is not the one asked for is a problem.
 */
export async function downloadPack(id: string, signal?: AbortSignal): Promise<Blob> {
  const parts: Blob[] = [];
  for (let offset = 0; ;) {
    const range = `bytes=${offset}-${offset + PART_BYTES - 1}`;
    const response = await request(routes.downloadEvidencePack, { params: { id }, signal, headers: { range } }, ZIP);
    const part = await response.blob();
    if (response.status === 200) return new Blob([part], { type: ZIP });
    const contentRange = response.headers.get('content-range') ?? '';
    const [, first, last, size] = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange) ?? [];
    if (Number(first) !== offset || Number(last) - offset + 1 !== part.size)
      throw new ApiProblem(response.status, 'Unexpected part', `The pack answered ${part.size} bytes with Content-Range "${contentRange}" to Range ${range}`);
    parts.push(part);
    offset += part.size;
    if (offset >= Number(size)) return new Blob(parts, { type: ZIP });
  }
}
