import { z } from 'zod';

import { sameAsAlias, sortQuery, uuidListQuery } from '#lib/http/list-query';
import { MAX_LIMIT, paginationQuery } from '#lib/http/pagination';
import { PG_INTEGER_MAX, wholeNumberQuery } from '#lib/http/query-values';
import { textField as text } from '#lib/http/text-field';
import { RESOURCE_TYPE_NAME } from '#lib/settings/schema';
import { serviceUrl } from '#lib/settings/values';

import { cronProblem } from './cron-expression';
import { STATUSES } from './lifecycle';

export type EntityKind = 'policy' | 'metric';

export const SEVERITIES = ['info', 'warning', 'error'] as const;
const TRIGGERS = ['active', 'passive'] as const;
const TIMINGS = ['deployment', 'runtime'] as const;
const STRATEGIES = ['default', 'previous_vs_current'] as const;
const ENGINES = ['cue', 'remote', 'llm'] as const;
const CUE_EVALUATORS = ['native', 'wasm'] as const;

const oneOf = <T extends readonly [string, ...string[]]>(name: string, values: T) => z.enum(values, { error: `${name} must be one of ${values.join(', ')}` });

const threshold = z
  .strictObject({
    label: text('label', 100),
    color: text('color', 50),
    min: z.number({ error: 'min must be a number' }).optional(),
    max: z.number({ error: 'max must be a number' }).optional(),
  })
  .refine((range) => range.min === undefined || range.max === undefined || range.min <= range.max, { message: 'min must not be above max', path: ['min'] });

const ruleText = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(20_000, `${name} is longer than 20000 characters`);

const fields = {
  name: text('name', 200),
  description: z.string({ error: 'description must be a string' }).max(20_000, 'description is longer than 20000 characters').default(''),
  resourceType: z.string({ error: 'resourceType is required' }).regex(RESOURCE_TYPE_NAME, 'resourceType must be the name of a registered resource type'),
  /** Absent or null: the entity applies in every environment. */
  environment: text('environment', 128).nullable().default(null),
  severity: oneOf('severity', SEVERITIES).default('error'),
  interactionType: text('interactionType', 64).nullable().default(null),
  tags: z.array(text('tag', 64)).max(50, 'at most 50 tags').default([]),
  engine: oneOf('engine', ENGINES).nullable().default(null),
  cueScript: z
    .string({ error: 'cueScript must be a string' })
    .min(1, 'cueScript must not be empty')
    .max(200_000, 'cueScript is longer than 200000 characters')
    .nullable()
    .default(null),
  requireConcrete: z.boolean({ error: 'requireConcrete must be true or false' }).default(true),
  remoteEngineUrl: serviceUrl('remoteEngineUrl', 'http://engine:8080').nullable().default(null),
  /**
   * llm: the requirement in natural language, judged by the assistant's LLM (docs/governance.md, "LLM policies").
   * The peer platform's `governanceAgentSpec.prompt` is the same text (below).
   */
  llmRule: ruleText('llmRule').nullable().default(null),
  /** The peer platform's spelling of llmRule (docs/governance.md, "Clients of other governance platforms"). */
  governanceAgentSpec: z
    .strictObject({ prompt: ruleText('governanceAgentSpec.prompt') }, { error: 'governanceAgentSpec must be an object { "prompt" }' })
    .nullable()
    .optional(),
  trigger: oneOf('trigger', TRIGGERS).default('active'),
  timing: oneOf('timing', TIMINGS).default('deployment'),
  cronExpression: text('cronExpression', 120).nullable().default(null),
  strategy: oneOf('strategy', STRATEGIES).default('default'),
};

const thresholds = z.array(threshold).max(20, 'at most 20 thresholds').default([]);

/**
 * The metadata of a CUE policy or metric kept as a file by the command line (lib/cli/policy-file.ts):
 * the input fields less the engine's (the file's body is the script), each optional, plus
 * `kind` and the `id` a pulled file keeps. The platform checks the rest when the file is pushed.
 */
export const entityFileMetadata = z.strictObject({
  kind: oneOf('kind', ['policy', 'metric'] as const).default('policy'),
  id: z.uuid({ error: 'id must be a UUID' }).optional(),
  ...z
    .strictObject({ ...fields, thresholds })
    .omit({ engine: true, cueScript: true, remoteEngineUrl: true, llmRule: true })
    .partial().shape,
});

interface CrossFieldInput {
  engine: string | null;
  cueScript: string | null;
  remoteEngineUrl: string | null;
  llmRule: string | null;
  governanceAgentSpec?: { prompt: string } | null;
  trigger: string;
  timing: string;
  cronExpression: string | null;
}

/** Rules between fields, each reported on the field to change. */
function crossFieldRules(entity: CrossFieldInput, ctx: z.RefinementCtx) {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (entity.trigger === 'active' && !entity.engine) issue('engine', 'engine is required for an active entity (cue, remote or llm)');
  if (entity.engine === 'cue' && !entity.cueScript) issue('cueScript', 'cueScript is required when engine is cue');
  if (entity.engine !== 'cue' && entity.cueScript) issue('cueScript', 'cueScript is only for engine cue');
  if (entity.engine === 'remote' && !entity.remoteEngineUrl) issue('remoteEngineUrl', 'remoteEngineUrl is required when engine is remote');
  if (entity.engine !== 'remote' && entity.remoteEngineUrl) issue('remoteEngineUrl', 'remoteEngineUrl is only for engine remote');
  const prompt = entity.governanceAgentSpec?.prompt;
  const rule = entity.llmRule ?? prompt;
  const ruleField = entity.llmRule === null && prompt !== undefined ? 'governanceAgentSpec' : 'llmRule';
  if (entity.llmRule !== null && prompt !== undefined && prompt !== entity.llmRule)
    issue('governanceAgentSpec', 'governanceAgentSpec.prompt is another spelling of llmRule: give one of them, or the same text to both');
  if (entity.engine === 'llm' && !rule) issue('llmRule', 'llmRule (or governanceAgentSpec.prompt) is required when engine is llm');
  if (entity.engine !== 'llm' && rule) issue(ruleField, `${ruleField} is only for engine llm`);
  if (entity.cronExpression) {
    const problem = cronProblem(entity.cronExpression);
    if (problem) issue('cronExpression', `not a valid cron expression: ${problem}`);
    else if (entity.timing !== 'runtime') issue('cronExpression', 'a cron expression is only for timing runtime');
  } else if (entity.timing === 'runtime' && entity.trigger === 'active') {
    issue('cronExpression', 'cronExpression is required for an active runtime entity: it says when it runs');
  }
}

/** The rule under its one stored name, llmRule, whichever spelling gave it. */
const withOneRuleName = <T extends CrossFieldInput>({ governanceAgentSpec, ...entity }: T) => ({
  ...entity,
  llmRule: entity.llmRule ?? governanceAgentSpec?.prompt ?? null,
});

/** Body of POST (create) and PUT (edit) of a policy. */
export const policyInput = z.strictObject(fields).superRefine(crossFieldRules).transform(withOneRuleName).meta({ id: 'PolicyInput' });

/** Body of POST (create) and PUT (edit) of a metric: a policy whose result is a number, read against thresholds. */
export const metricInput = z
  .strictObject({ ...fields, thresholds })
  .superRefine(crossFieldRules)
  .superRefine((metric, ctx) => {
    // A metric's number is read against thresholds and charted over time: a model's guess would make it drift.
    if (metric.engine === 'llm')
      ctx.addIssue({ code: 'custom', path: ['engine'], message: 'engine llm is only for policies: a metric needs a reproducible number (cue or remote)' });
  })
  .transform(withOneRuleName)
  .meta({ id: 'MetricInput' });

export type PolicyInput = z.output<typeof policyInput>;
export type MetricInput = z.output<typeof metricInput>;
export type EntityInput = PolicyInput & { thresholds?: MetricInput['thresholds'] };

/** What a saved version stores: the input, and for cue the evaluator the save check chose. */
export type EntityContent = EntityInput & { evaluator: (typeof CUE_EVALUATORS)[number] | null; evaluatorReason: string | null };

const representationFields = {
  id: z.string(),
  version: z.number().int(),
  name: z.string(),
  description: z.string(),
  resourceType: z.string(),
  environment: z.string().nullable(),
  severity: z.enum(SEVERITIES),
  interactionType: z.string().nullable(),
  tags: z.array(z.string()),
  engine: z.enum(ENGINES).nullable(),
  cueScript: z.string().nullable(),
  requireConcrete: z.boolean(),
  remoteEngineUrl: z.string().nullable(),
  llmRule: z.string().nullable().meta({ description: 'llm: the requirement in natural language the LLM judges descriptors against; null otherwise' }),
  governanceAgentSpec: z
    .object({ prompt: z.string() })
    .nullable()
    .meta({ description: "llmRule in the peer platform's shape, { prompt: llmRule }; null when llmRule is" }),
  trigger: z.enum(TRIGGERS),
  timing: z.enum(TIMINGS),
  cronExpression: z.string().nullable(),
  strategy: z.enum(STRATEGIES),
  status: z.enum(STATUSES),
  evaluator: z
    .enum(CUE_EVALUATORS)
    .nullable()
    .meta({
      description:
        'cue: what evaluates this version, decided when it was saved (docs/cue-policies.md, "Which evaluator runs a policy"); ' +
        'null for remote, and for a version saved before the choice existed (decided when evaluated)',
    }),
  evaluatorReason: z.string().nullable().meta({ description: 'Why this version is evaluated by wasm rather than native; null otherwise' }),
  createdAt: z.string(),
  createdBy: z.string(),
  updatedAt: z.string(),
  updatedBy: z.string(),
};

export const policyRepresentation = z.object(representationFields).meta({ id: 'Policy' });
export const metricRepresentation = z
  .object({
    ...representationFields,
    thresholds: z.array(z.object({ label: z.string(), color: z.string(), min: z.number().optional(), max: z.number().optional() })),
  })
  .meta({ id: 'Metric' });

export type EntityRepresentation = z.output<typeof policyRepresentation> & { thresholds?: z.output<typeof metricRepresentation>['thresholds'] };

/** Publish answers the entity and the report of the evaluation it started (null when none started). */
const evaluationReportId = z.uuid().nullable().meta({
  description:
    'The report of the evaluation against every resource that publishing started; null when evaluation.enable-on-publish is false or the entity is passive',
});
export const publishedPolicy = policyRepresentation.extend({ evaluationReportId }).meta({ id: 'PublishedPolicy' });
export const publishedMetric = metricRepresentation.extend({ evaluationReportId }).meta({ id: 'PublishedMetric' });
export type PublishedEntity = EntityRepresentation & { evaluationReportId: string | null };

export const entityId = z.object({ id: z.uuid({ error: 'id must be a UUID' }) });

const commaList = <T extends readonly [string, ...string[]]>(name: string, values: T) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .pipe(z.array(oneOf(name, values)));

/** Filters of the list endpoints. */
export const entityFilters = z.object({
  status: commaList('status', STATUSES).optional(),
  resourceType: z.string().optional(),
  environment: z.string().optional(),
  trigger: oneOf('trigger', TRIGGERS).optional(),
  text: z.string().max(200, 'text is longer than 200 characters').optional(),
});

/** What a list can be sorted by (`sort-by`); severity and status in their rank order, not alphabetically. */
const ENTITY_SORT_FIELDS = ['name', 'createdAt', 'updatedAt', 'severity', 'status'] as const;

/** The query of GET /policies and /metrics: the filters, and the peer platform's spellings (docs/governance.md, "Clients of other governance platforms"). */
export const entityListQuery = paginationQuery
  .extend({
    ...entityFilters.shape,
    env: z.string().optional().meta({ description: "Another name for environment (the peer platform's)" }),
    'id-in': uuidListQuery('id-in', MAX_LIMIT).optional().meta({ description: 'Only these ids (comma list of UUIDs)' }),
    ...sortQuery(
      ENTITY_SORT_FIELDS,
      'The order of the list, name by default. Names compare case-insensitively (lower(name), by the database collation), then as written; ' +
        'equal keys by name, then id. severity: info < warning < error; status: draft < grace < enabled < disabled',
    ),
  })
  .superRefine(sameAsAlias('env', 'environment'));

export type EntityFilters = Omit<z.output<typeof entityListQuery>, 'limit' | 'offset'>;

export const versionQuery = z.object({
  version: wholeNumberQuery('version', 1, PG_INTEGER_MAX).optional(),
});

export const statusMove = z
  .strictObject({
    status: oneOf('status', STATUSES),
    /** Which version to move; the newest when absent. */
    version: z
      .number({ error: 'version must be a number' })
      .int('version must be a whole number')
      .positive('version must be at least 1')
      .max(PG_INTEGER_MAX, `version must be at most ${PG_INTEGER_MAX}`)
      .optional(),
  })
  .meta({ id: 'StatusMove' });
