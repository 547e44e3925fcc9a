import { z } from 'zod';

import { booleanQuery, wholeNumberQuery } from '#lib/http/query-values';

import { OUTCOMES } from '../evaluation/outcome';

/** How a resource's verdict changes from the live version's newest result to the candidate's. */
export const CHANGES = ['newlyFailing', 'newlyPassing', 'stillFailing', 'stillPassing', 'notEvaluated'] as const;
export type Change = (typeof CHANGES)[number];

/** Body of POST /policies/{id}/impact (and /metrics/{id}/impact). */
export const impactInput = z
  .strictObject({
    version: z.number({ error: 'version must be a whole number' }).int('version must be a whole number').min(1, 'version must be 1 or more').optional(),
    environments: z
      .array(z.string({ error: 'environments must be names' }).min(1, 'an environment name must not be empty'), {
        error: 'environments must be a list of names',
      })
      .min(1, 'environments must name at least one environment')
      .optional(),
  })
  .meta({ id: 'ImpactInput' });

export type ImpactInput = z.output<typeof impactInput>;

const count = z.number().int();
const counts = z.object(Object.fromEntries(CHANGES.map((change) => [change, count])) as Record<Change, typeof count>).meta({ id: 'ImpactCounts' });
export type ImpactCounts = z.output<typeof counts>;

export const impactReport = z
  .object({
    id: z.string(),
    status: z.enum(['pending', 'running', 'completed', 'failed']),
    kind: z.enum(['policy', 'metric']),
    policyId: z.string().meta({ description: 'The policy (or metric) whose candidate version is weighed' }),
    candidateVersion: z.number().int(),
    baselineVersion: z.number().int().nullable().meta({ description: 'The live (enabled or grace) version compared with; null when none was live' }),
    environments: z.array(z.string()),
    evaluationReportId: z.string().meta({ description: 'The run of the candidate (cause impact): its results stay with it, never in the history' }),
    error: z.string().nullable(),
    counts: counts.nullable().meta({ description: 'Null until the run completed' }),
    byEnvironment: z.array(counts.extend({ environment: z.string() })),
    byOwner: z.array(
      counts.extend({ owner: z.string().nullable().meta({ description: 'Null: the descriptor named no owner (or the type names no owner field)' }) }),
    ),
    byThreshold: z
      .array(
        z
          .object({
            baselineThreshold: z
              .string()
              .nullable()
              .meta({ description: "The label of the threshold the live version's newest value fell in; null: none (or not judged)" }),
            candidateThreshold: z
              .string()
              .nullable()
              .meta({ description: "The label of the threshold the candidate's value falls in (under its own thresholds); null: none" }),
            count: count,
          })
          .meta({ id: 'ImpactThresholdMove' }),
      )
      .meta({ description: 'A metric: how many resources go from one threshold to another, the moves first; empty for a policy' }),
    createdAt: z.string(),
    createdBy: z.string(),
  })
  .meta({ id: 'ImpactReport' });

export type ImpactReport = z.output<typeof impactReport>;

export const impactAccepted = z.object({ impactReportId: z.string() }).meta({ id: 'ImpactAccepted' });

export const impactResourcesQuery = z.object({
  change: z.enum(CHANGES, { error: `change must be one of ${CHANGES.join(', ')}` }).optional(),
  limit: wholeNumberQuery('limit', 1, 1000).default(100),
  thresholdChanged: booleanQuery('thresholdChanged').meta({ description: "true: only a metric's resources whose threshold changed" }),
  after: z.string().optional().meta({ description: 'The `next` cursor of the page before' }),
});

export type ImpactResourcesQuery = z.output<typeof impactResourcesQuery>;

const impactResource = z
  .object({
    environment: z.string(),
    resourceId: z.string(),
    owner: z.string().nullable(),
    change: z.enum(CHANGES),
    candidateOutcome: z.enum(OUTCOMES),
    baselineOutcome: z.enum(OUTCOMES).nullable(),
    errors: z.array(z.string()),
    candidateValue: z.number().nullable().meta({ description: "A metric's number under the candidate; null for a policy" }),
    baselineValue: z.number().nullable(),
    candidateThreshold: z.string().nullable().meta({ description: 'The label of the threshold the candidate value falls in' }),
    baselineThreshold: z.string().nullable(),
  })
  .meta({ id: 'ImpactResource' });

export const impactResourcesPage = z
  .object({ data: z.array(impactResource), meta: z.object({ limit: z.number().int(), next: z.string().nullable() }) })
  .meta({ id: 'ImpactResources' });

export type ImpactResourcesPage = z.output<typeof impactResourcesPage>;
