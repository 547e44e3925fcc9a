import { z } from 'zod';

import { booleanQuery } from '#lib/http/query-values';
import { textField } from '#lib/http/text-field';

import { globProblem } from './resource-glob';

const entityId = (name: string) => z.uuid({ error: `${name} must be a UUID` });

/** Body of POST /v1/computational-governance/exceptions. */
export const exceptionInput = z
  .strictObject({
    policyId: entityId('policyId').optional().meta({ description: 'The policy waived (give policyId or metricId)' }),
    metricId: entityId('metricId').optional().meta({ description: 'The metric waived (give policyId or metricId)' }),
    resourceId: textField('resourceId', 512)
      .superRefine((glob, context) => {
        const problem = globProblem(glob);
        if (problem) context.addIssue({ code: 'custom', message: problem });
      })
      .meta({ description: 'A resource id, or a glob: `*` any characters, `?` one character, `\\` makes the next one literal' }),
    environment: textField('environment', 128).optional().meta({ description: 'Absent: every environment' }),
    reason: textField('reason', 2000),
    ticket: textField('ticket', 512).optional(),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'expiresAt must be a date and time with its offset, such as 2026-12-31T00:00:00Z' })
      .meta({ description: 'Required; in the future, at most exceptions.max-duration (default 90 days) ahead' }),
  })
  .superRefine((input, context) => {
    if ((input.policyId === undefined) === (input.metricId === undefined))
      context.addIssue({ code: 'custom', path: ['policyId'], message: 'give either policyId or metricId' });
  })
  .meta({ id: 'ExceptionInput' });

export type ExceptionInput = z.output<typeof exceptionInput>;

export const governanceException = z
  .object({
    id: z.string(),
    policyId: z.string().optional(),
    metricId: z.string().optional(),
    resourceId: z.string(),
    environment: z.string().nullable().meta({ description: 'Null: every environment' }),
    reason: z.string(),
    ticket: z.string().nullable(),
    expiresAt: z.string(),
    createdBy: z.string(),
    createdAt: z.string(),
    requestedBy: z.string().meta({ description: 'Who asked for it (the same as createdBy)' }),
    approvedBy: z.string().nullable().meta({ description: 'Who approved it under four-eyes; null when it was created without approval' }),
    active: z.boolean().meta({ description: 'Not expired yet: failing results of its pairs are waived' }),
  })
  .meta({ id: 'GovernanceException' });

export type GovernanceException = z.output<typeof governanceException>;

export const exceptionFilters = z.object({
  policyId: entityId('policyId').optional().meta({ description: 'Only the exceptions of this policy or metric' }),
  resourceId: z
    .string()
    .min(1, 'resourceId must not be empty')
    .max(512, 'resourceId is longer than 512 characters')
    .optional()
    .meta({ description: 'Only the exceptions that apply to this resource id (exactly or by their glob)' }),
  environment: z
    .string()
    .min(1, 'environment must not be empty')
    .max(128, 'environment is longer than 128 characters')
    .optional()
    .meta({ description: 'Only the exceptions that apply in this environment (theirs, or every one)' }),
  active: booleanQuery('active').meta({ description: 'true: only those not expired; false: only the expired' }),
});

export type ExceptionFilters = z.output<typeof exceptionFilters>;

export const exceptionId = z.object({ id: z.uuid({ error: 'id must be a UUID' }) });
