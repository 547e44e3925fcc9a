import { z } from 'zod';

import { sameAsAlias } from '#lib/http/list-query';
import { paginationQuery } from '#lib/http/pagination';
import { booleanQuery, wholeNumberQuery } from '#lib/http/query-values';
import { textField as text } from '#lib/http/text-field';
import { RESOURCE_TYPE_NAME } from '#lib/settings/schema';

import type { StoredVerdict } from '../../../drizzle/schema/json-columns';
import { SEVERITIES } from '../policies/entity';
import { STATUSES } from '../policies/lifecycle';
import { OUTCOMES } from './outcome';

const scalarText = (name: string) => z.union([text(name, 512), z.number().transform(String)], { error: `${name} must be a string` });

/** Body of POST /v1/computational-governance/evaluate. */
export const evaluateInput = z
  .strictObject({
    id: scalarText('id').optional(),
    displayName: text('displayName', 512).optional(),
    version: scalarText('version').optional(),
    environment: text('environment', 128),
    resourceType: z.string({ error: 'resourceType is required' }).regex(RESOURCE_TYPE_NAME, 'resourceType must be the name of a registered resource type'),
    descriptor: z.union([z.string().min(1, 'descriptor must not be empty'), z.record(z.string(), z.unknown())], {
      error: 'descriptor is required: YAML or JSON text, or an object',
    }),
    labels: z.array(text('label', 128)).max(50, 'at most 50 labels').default([]),
    dryRun: z.boolean({ error: 'dryRun must be true or false' }).optional().meta({
      description:
        "true: a dry run whoever calls (never the resource's state, as for a caller who may not speak for it); a check before a change, such as a coding agent's (docs/mcp.md)",
    }),
  })
  .meta({ id: 'EvaluateInput' });

export type EvaluateInput = z.output<typeof evaluateInput>;

/** Body of POST .../policies/{id}/test: one descriptor, or none to test every resource of an environment. */
export const policyTestInput = z
  .strictObject({
    environment: text('environment', 128),
    descriptor: z.union([z.string().min(1, 'descriptor must not be empty'), z.record(z.string(), z.unknown())]).optional(),
    id: scalarText('id').optional(),
    displayName: text('displayName', 512).optional(),
    version: scalarText('version').optional(),
  })
  .meta({ id: 'PolicyTestInput' });

export type PolicyTestInput = z.output<typeof policyTestInput>;

const resourceIdentity = z.object({
  id: z.string(),
  displayName: z.string().nullable(),
  version: z.string().nullable(),
  environment: z.string(),
  resourceType: z.string(),
});

export const evaluationResult = z
  .object({
    governanceEntityId: z.string(),
    governanceEntityVersion: z.number().int(),
    governanceEntityType: z.enum(['policy', 'metric']),
    governanceEntityStatus: z.enum(STATUSES),
    severity: z.enum(SEVERITIES),
    outcome: z.enum(OUTCOMES),
    resource: resourceIdentity,
    result: z.object({
      satisfiesPolicy: z.boolean(),
      isError: z.boolean(),
      errors: z.array(z.string()),
      details: z.record(z.string(), z.unknown()).optional(),
      value: z.number().optional(),
      threshold: z.object({ label: z.string(), color: z.string(), min: z.number().optional(), max: z.number().optional() }).optional(),
      locations: z
        .array(z.object({ path: z.string(), line: z.number().int(), column: z.number().int() }))
        .optional()
        .meta({
          description:
            'CUE: where in the descriptor (given as YAML or JSON text) the field each error names is, in the order of errors; the field itself, or the parent a missing field belongs in',
        }),
    }) satisfies z.ZodType<StoredVerdict>,
    creationTime: z.string(),
  })
  .meta({ id: 'EvaluationResult' });

export type EvaluationResult = z.output<typeof evaluationResult>;

export const evaluationReport = z
  .object({
    id: z.string(),
    status: z.enum(['pending', 'running', 'completed', 'failed']),
    evaluationScope: z.enum(['resource', 'policy']),
    cause: z
      .enum(['evaluate', 'test', 'publish', 'schedule', 'impact'])
      .meta({ description: 'What started it: an Evaluate call, a policy test, a publish, a cron schedule, or an impact report' }),
    environment: z.string().nullable().meta({ description: 'Null when it covers every environment (publish or schedule of an entity of every environment)' }),
    resourceType: z.string(),
    labels: z.array(z.string()),
    dryRun: z.boolean().meta({
      description:
        "True when its results are not the resources' state (not in latest results, compliance, notifications): a policy test, an impact report, or an Evaluate by a caller who may not speak for the resource (docs/authorization.md)",
    }),
    outcome: z.enum(OUTCOMES).nullable(),
    passed: z.boolean().nullable(),
    progress: z.object({
      total: z.number().int(),
      done: z.number().int(),
      waiting: z
        .array(
          z.object({
            environment: z.string(),
            offset: z.number().int().meta({ description: 'Where the page that waits starts' }),
            kind: z
              .enum(['call', 'delivery'])
              .meta({ description: "call: the worker retries the resolver call; delivery: the page's message is delivered again" }),
            reason: z.string().meta({ description: 'What failed, naming no internal address' }),
            attempt: z.number().int().meta({ description: 'The attempt that failed' }),
            attempts: z.number().int().meta({ description: 'How many attempts there are in all' }),
            nextTryAt: z
              .string()
              .meta({ description: 'The next attempt starts then, or soon after; after the last attempt (attempt = attempts), the page is given up then' }),
          }),
        )
        .optional()
        .meta({ description: 'While a running report waits on a retry: each page that waits, and why' }),
    }),
    counts: z
      .object({
        total: z.number().int(),
        ok: z.number().int(),
        waived: z.number().int().meta({ description: 'Non-compliances an active exception waived: they do not make passed false' }),
        info: z.number().int(),
        warning: z.number().int(),
        error: z.number().int(),
        failed: z.number().int(),
      })
      .meta({ description: 'How many results the report holds, by outcome: always whole, however the results are paged' }),
    error: z.string().nullable(),
    evaluationResults: z.array(evaluationResult).meta({ description: 'The first page of results (resultsPage): every result of a report of up to 1000' }),
    resultsPage: z
      .object({ limit: z.number().int(), next: z.string().nullable() })
      .meta({ description: 'next: null when evaluationResults holds the rest of the results, else the cursor to pass as `after` for the next page' }),
    createdAt: z.string(),
    createdBy: z.string(),
    completedAt: z.string().nullable(),
  })
  .meta({ id: 'EvaluationReport' });

export type EvaluationReport = z.output<typeof evaluationReport>;

export const reportAccepted = z.object({ reportId: z.string() }).meta({ id: 'ReportAccepted' });

/** Body of POST .../policies/{id}/results: a result pushed by an outside checker. */
export const passiveResultInput = z
  .strictObject({
    environment: text('environment', 128),
    resource: z.strictObject({
      id: scalarText('resource.id'),
      displayName: text('resource.displayName', 512).optional(),
      version: scalarText('resource.version').optional(),
    }),
    satisfiesPolicy: z.boolean({ error: 'satisfiesPolicy must be true or false' }),
    errors: z.array(z.string()).max(1000).default([]),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'PassiveResultInput' });

export type PassiveResultInput = z.output<typeof passiveResultInput>;

const resultFilters = z.object({
  resourceId: z.string().optional(),
  policyId: z.uuid({ error: 'policyId must be a UUID' }).optional(),
  environment: z.string().optional(),
  env: z.string().optional().meta({ description: "Another name for environment (the peer platform's)" }),
  resourceType: z.string().optional(),
  outcome: z.enum(OUTCOMES, { error: `outcome must be one of ${OUTCOMES.join(', ')}` }).optional(),
  owner: z
    .string()
    .min(1, 'owner must not be empty')
    .max(512, 'owner is longer than 512 characters')
    .optional()
    .meta({ description: "Only the results of resources whose descriptor named this owner (the resource type's owner field) when judged" }),
  latest: booleanQuery('latest'),
});

export type ResultFilters = z.output<typeof resultFilters>;

/** The query of GET /results: a page of the filtered history. */
export const resultListQuery = paginationQuery.extend(resultFilters.shape).superRefine(sameAsAlias('env', 'environment'));

export const reportId = z.object({ id: z.uuid({ error: 'id must be a UUID' }) });

/** Which page of a report's results: `after` is the `next` cursor of the page before. */
export const reportResultsQuery = z.object({
  limit: wholeNumberQuery('limit', 1, 1000).default(1000),
  after: wholeNumberQuery('after', 0, Number.MAX_SAFE_INTEGER).optional(),
});

export type ReportResultsQuery = z.output<typeof reportResultsQuery>;

export const reportResultsPage = z
  .object({ data: z.array(evaluationResult), meta: z.object({ limit: z.number().int(), next: z.string().nullable() }) })
  .meta({ id: 'EvaluationReportResults' });
