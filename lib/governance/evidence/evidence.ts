import { z } from 'zod';

import { textField } from '#lib/http/text-field';

const names = (field: string) =>
  z
    .array(textField(field, 128), { error: `${field} must be a list of names` })
    .min(1, `${field} must name at least one, or be left out for every one`)
    .max(100, `${field} names at most 100`);

/** Body of POST /evidence. */
export const evidenceInput = z
  .strictObject({
    at: z.iso
      .datetime({ offset: true, error: 'at must be a date and time with its offset, such as 2026-09-30T23:59:59Z' })
      .optional()
      .meta({ description: 'The moment the pack shows; default: now. Not in the future, at most retention.reports days ago (docs/evidence.md)' }),
    environments: names('environments').optional().meta({ description: 'Absent: every environment' }),
    resourceTypes: names('resourceTypes').optional().meta({ description: 'Absent: every resource type' }),
  })
  .meta({ id: 'EvidenceInput' });

export type EvidenceInput = z.output<typeof evidenceInput>;

const EVIDENCE_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;

const count = z.number().int();

const evidenceSummary = z
  .object({
    policies: count.meta({ description: 'Policy and metric versions in force at `at`' }),
    verdicts: count,
    resources: count,
    failingResources: count,
    exceptions: count.meta({ description: 'Exceptions active at `at`' }),
    approvals: count,
    auditRecords: count,
  })
  .meta({ id: 'EvidenceSummary' });

export const evidencePack = z
  .object({
    evidenceId: z.string(),
    status: z.enum(EVIDENCE_STATUSES),
    at: z.string().meta({ description: 'The moment the pack shows (ISO 8601)' }),
    environments: z.array(z.string()).nullable().meta({ description: 'Null: every environment' }),
    resourceTypes: z.array(z.string()).nullable().meta({ description: 'Null: every resource type' }),
    requestedBy: z.string(),
    requestedAt: z.string(),
    completedAt: z.string().nullable(),
    attempts: count,
    error: z.string().nullable().meta({ description: 'Why it failed (status failed), or why its last attempt did' }),
    summary: evidenceSummary.nullable().meta({ description: 'Null until completed' }),
    size: count.nullable().meta({ description: 'The zip, in bytes; null until completed' }),
    sha256: z.string().nullable().meta({ description: 'SHA-256 (hex) of the zip; null until completed' }),
  })
  .meta({ id: 'EvidencePack' });

export type EvidencePack = z.output<typeof evidencePack>;

export const evidenceId = z.object({ id: z.uuid({ error: 'id must be a UUID' }) });
