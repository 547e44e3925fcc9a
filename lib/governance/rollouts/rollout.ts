import { z } from 'zod';

/** Body of POST /policies/{id}/rollout (and /metrics/{id}/rollout). */
export const rolloutInput = z
  .strictObject({
    enableAt: z.iso
      .datetime({ offset: true, error: 'enableAt must be a date and time with its offset, such as 2027-01-31T06:00:00Z' })
      .meta({ description: 'When the version in grace moves to enabled' }),
    notifyDaysBefore: z
      .number({ error: 'notifyDaysBefore must be a whole number of days' })
      .int('notifyDaysBefore must be a whole number of days')
      .min(0, 'notifyDaysBefore must be 0 or more')
      .max(365, 'notifyDaysBefore must be at most 365')
      .default(7)
      .meta({ description: 'How many days before enableAt the owners of the resources it newly fails are told' }),
  })
  .meta({ id: 'RolloutInput' });

export type RolloutInput = z.output<typeof rolloutInput>;

export const rolloutRepresentation = z
  .object({
    id: z.string(),
    kind: z.enum(['policy', 'metric']),
    policyId: z.string(),
    version: z.number().int().meta({ description: 'The version in grace it moves to enabled' }),
    enableAt: z.string(),
    notifyDaysBefore: z.number().int(),
    noticeSentAt: z.string().nullable().meta({ description: 'When the owners of the resources failing its version were told' }),
    status: z.enum(['scheduled', 'done', 'cancelled', 'failed']),
    error: z.string().nullable(),
    createdBy: z.string(),
    createdAt: z.string(),
    approvedBy: z.string().nullable().meta({ description: 'Four-eyes: who approved the rollout' }),
    endedAt: z.string().nullable(),
    endedBy: z.string().nullable(),
  })
  .meta({ id: 'Rollout' });

export type RolloutRepresentation = z.output<typeof rolloutRepresentation>;
