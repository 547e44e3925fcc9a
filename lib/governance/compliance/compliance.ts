import { z } from 'zod';

import { wholeNumberQuery } from '#lib/http/query-values';
import { RESOURCE_TYPE_NAME } from '#lib/settings/schema';

import { OUTCOMES } from '../evaluation/outcome';
import { SEVERITIES } from '../policies/entity';
import { STATUSES } from '../policies/lifecycle';

/** Which resources the compliance endpoints count. */
const complianceFilters = z.object({
  environment: z
    .string()
    .min(1, 'environment must not be empty')
    .max(128, 'environment is longer than 128 characters')
    .optional()
    .meta({ description: 'Only resources of this environment' }),
  resourceType: z
    .string()
    .regex(RESOURCE_TYPE_NAME, 'resourceType must be the name of a resource type')
    .optional()
    .meta({ description: 'Only resources of this type' }),
});

export type ComplianceFilters = z.output<typeof complianceFilters>;

export const summaryQuery = complianceFilters.extend({
  policyId: z
    .uuid({ error: 'policyId must be a UUID' })
    .optional()
    .meta({ description: 'Only the results of this policy or metric: each resource passes or fails by its result alone' }),
  top: wholeNumberQuery('top', 1, 50).default(10).meta({ description: 'How many policies topFailingPolicies lists (1-50, default 10)' }),
});

export type SummaryQuery = z.output<typeof summaryQuery>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isoDay = (name: string) =>
  z
    .string()
    .regex(DAY, `${name} must be a date (YYYY-MM-DD)`)
    .refine(
      (value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
      `${name} is not a date`,
    );

/** The longest trend, in days. */
export const MAX_TREND_DAYS = 366;

export const trendQuery = complianceFilters
  .extend({
    days: wholeNumberQuery('days', 1, MAX_TREND_DAYS)
      .optional()
      .meta({ description: `The last N days, today included (1-${MAX_TREND_DAYS}, default 30); not with from/to` }),
    from: isoDay('from').optional().meta({ description: 'First day (UTC), YYYY-MM-DD; default: 29 days before `to`' }),
    to: isoDay('to').optional().meta({ description: 'Last day (UTC), YYYY-MM-DD, at most today; default today' }),
  })
  .superRefine((query, context) => {
    if (query.days !== undefined && (query.from !== undefined || query.to !== undefined))
      context.addIssue({ code: 'custom', path: ['days'], message: 'days cannot be given with from or to' });
  });

export type TrendQuery = z.output<typeof trendQuery>;

const count = z.number().int();

const resourceCounts = z
  .object({
    total: count,
    passing: count.meta({ description: 'Resources none of whose counted results is error or failed' }),
    failing: count.meta({ description: 'Resources with at least one counted result error or failed (the deploy gate: passed = false)' }),
    byWorstOutcome: z
      .object(Object.fromEntries(OUTCOMES.map((outcome) => [outcome, count])) as Record<(typeof OUTCOMES)[number], typeof count>)
      .meta({ description: 'Resources by the worst outcome of their counted results (ok < info < warning < error < failed)' }),
  })
  .meta({ id: 'ComplianceResourceCounts' });

export type ResourceCounts = z.output<typeof resourceCounts>;

const outcomeCounts = z
  .object({ total: count, ...(Object.fromEntries(OUTCOMES.map((outcome) => [outcome, count])) as Record<(typeof OUTCOMES)[number], typeof count>) })
  .meta({ id: 'ComplianceOutcomeCounts' });

export type OutcomeCounts = z.output<typeof outcomeCounts>;

export const complianceSummary = z
  .object({
    resources: resourceCounts,
    outcomes: outcomeCounts.meta({
      description: 'The counted results (the newest of each policy or metric and resource) by outcome: the failures by severity',
    }),
    byEnvironment: z.array(z.object({ environment: z.string(), resources: resourceCounts })),
    byResourceType: z.array(z.object({ resourceType: z.string(), resources: resourceCounts })),
    byEnvironmentAndResourceType: z.array(z.object({ environment: z.string(), resourceType: z.string(), resources: resourceCounts })),
    topFailingPolicies: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          kind: z.enum(['policy', 'metric']),
          version: z.number().int().meta({ description: 'The enabled or grace version, whose status and severity judge the results' }),
          status: z.enum(STATUSES),
          severity: z.enum(SEVERITIES),
          resourceType: z.string(),
          outcomes: outcomeCounts,
        }),
      )
      .meta({
        description: 'The policies and metrics with the most error or failed results, then the most other findings (info, warning); only those with a finding',
      }),
    computedAt: z.string(),
  })
  .meta({ id: 'ComplianceSummary' });

export type ComplianceSummary = z.output<typeof complianceSummary>;

export const complianceTrend = z
  .object({
    from: z.string(),
    to: z.string(),
    days: z.array(
      z.object({
        date: z.string().meta({ description: 'A day (UTC), YYYY-MM-DD' }),
        resources: resourceCounts.nullable().meta({
          description:
            'The compliance at the end of that day (today: now); null for a past day not recorded yet (the complianceSnapshotter records each day within the hour)',
        }),
      }),
    ),
  })
  .meta({ id: 'ComplianceTrend' });

export type ComplianceTrend = z.output<typeof complianceTrend>;
