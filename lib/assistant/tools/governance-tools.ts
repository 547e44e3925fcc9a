import { z } from 'zod';

import { NotFoundError } from '#lib/errors/domain-errors';
import { listResults } from '#lib/governance/evaluation/evaluation-service';
import { OUTCOMES } from '#lib/governance/evaluation/outcome';
import type { EvaluationResult } from '#lib/governance/evaluation/report';
import { entityFilters, type EntityRepresentation } from '#lib/governance/policies/entity';
import { getEntity, listEntities } from '#lib/governance/policies/entity-reading';
import { STATUSES } from '#lib/governance/policies/lifecycle';

import type { AssistantTool } from './assistant-tool';

/** The errors of a result the model is shown: the first few, each cut short. */
const MAX_ERRORS = 10;
const MAX_ERROR_LENGTH = 500;

const page = (max: number) => ({
  limit: z.number().int().min(1).max(max).default(25).describe(`How many to answer (at most ${max})`),
  offset: z.number().int().min(0).default(0).describe('How many to skip (the next page)'),
});

const compactErrors = (errors: readonly string[]) =>
  errors.slice(0, MAX_ERRORS).map((error) => (error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH)}...` : error));

const compactEntity = (entity: EntityRepresentation) => ({
  id: entity.id,
  name: entity.name,
  version: entity.version,
  status: entity.status,
  engine: entity.engine,
  resourceType: entity.resourceType,
  environment: entity.environment,
  severity: entity.severity,
});

const compactResult = (result: EvaluationResult) => ({
  policyId: result.governanceEntityId,
  policyVersion: result.governanceEntityVersion,
  kind: result.governanceEntityType,
  resourceId: result.resource.id,
  environment: result.resource.environment,
  outcome: result.outcome,
  satisfiesPolicy: result.result.satisfiesPolicy,
  isError: result.result.isError,
  errors: compactErrors(result.result.errors),
  errorCount: result.result.errors.length,
  creationTime: result.creationTime,
});

const findPoliciesArguments = z.strictObject({
  kind: z.enum(['policy', 'metric']).default('policy').describe('Policies (default) or metrics'),
  status: z.array(z.enum(STATUSES)).optional().describe('Only these statuses'),
  resourceType: entityFilters.shape.resourceType.describe('Only policies of this resource type'),
  environment: entityFilters.shape.environment.describe('Only policies of this environment'),
  trigger: entityFilters.shape.trigger.describe('active (run by an engine) or passive (results pushed)'),
  text: entityFilters.shape.text.describe('Words in the name or description'),
  ...page(100),
});

/** GET /policies (or /metrics) with its filters: the newest version of each, compact. */
export const findPolicies: AssistantTool<z.output<typeof findPoliciesArguments>> = {
  name: 'find_policies',
  description:
    'Lists the governance policies (or metrics) of the platform, the newest version of each, filtered as GET /v1/computational-governance/policies is: ' +
    'id, name, version, status, engine, resource type, environment, severity; and how many match in all.',
  arguments: findPoliciesArguments,
  async run({ kind, limit, offset, ...filters }, context) {
    const { data, meta } = await listEntities(context.governance, kind, filters, { limit, offset });
    return { result: { total: meta.pagination.total, [kind === 'policy' ? 'policies' : 'metrics']: data.map(compactEntity) } };
  },
};

const latestResultsArguments = z
  .strictObject({
    resourceId: z.string().trim().min(1).max(512).optional().describe("A resource's id"),
    policyId: z.uuid().optional().describe("A policy's (or metric's) id"),
    environment: z.string().optional().describe('Only results of this environment'),
    outcome: z.enum(OUTCOMES).optional().describe('Only results of this outcome'),
    ...page(100),
  })
  .refine((args) => args.resourceId !== undefined || args.policyId !== undefined, { message: 'give resourceId or policyId (or both)', path: ['resourceId'] });

/** GET /results?latest=true: the newest result of each (policy, resource, environment), compact. */
export const latestResults: AssistantTool<z.output<typeof latestResultsArguments>> = {
  name: 'latest_results',
  description:
    'The latest evaluation result of each (policy, resource, environment) for a resource, a policy, or both: outcome, whether it satisfies the policy, ' +
    'its errors; newest first, and how many match in all.',
  arguments: latestResultsArguments,
  async run({ limit, offset, ...filters }, context) {
    const { data, meta } = await listResults(context.governance, { ...filters, latest: true }, { limit, offset });
    return { result: { total: meta.pagination.total, results: data.map(compactResult) } };
  },
};

/** What produced a result: the policy version's text; a remote engine's address without credentials or query. */
function policyText(entity: EntityRepresentation) {
  const remoteEngine = entity.remoteEngineUrl === null ? undefined : new URL(entity.remoteEngineUrl);
  return {
    id: entity.id,
    version: entity.version,
    name: entity.name,
    description: entity.description,
    engine: entity.engine,
    ...(entity.cueScript === null ? {} : { cueScript: entity.cueScript, requireConcrete: entity.requireConcrete }),
    ...(entity.llmRule === null ? {} : { llmRule: entity.llmRule }),
    ...(remoteEngine ? { remoteEngine: `${remoteEngine.origin}${remoteEngine.pathname}` } : {}),
  };
}

const explainResultArguments = z.strictObject({
  policyId: z.uuid().describe("The policy's (or metric's) id"),
  resourceId: z.string().trim().min(1).max(512).describe("The resource's id"),
  environment: z.string().optional().describe('Only the result of this environment'),
});

/** The latest results of one (policy, resource) pair with the text of the policy version that produced each. */
export const explainResult: AssistantTool<z.output<typeof explainResultArguments>> = {
  name: 'explain_result',
  description:
    'Explains the latest result of a policy for a resource (in each environment, or the one given): its errors, with the text of the policy version ' +
    'that produced them (its CUE script, LLM rule, or remote engine).',
  arguments: explainResultArguments,
  async run({ policyId, resourceId, environment }, context) {
    const { data } = await listResults(context.governance, { policyId, resourceId, environment, latest: true }, { limit: 10, offset: 0 });
    if (data.length === 0) throw new NotFoundError(`No result of the policy ${policyId} for the resource ${resourceId} is recorded`);
    const versions = new Map(data.map((result) => [result.governanceEntityVersion, result.governanceEntityType]));
    const policies = await Promise.all(
      [...versions].map(([version, kind]) =>
        getEntity(context.governance, kind, policyId, version).then(policyText, (error) => {
          // A deleted policy keeps its results: they are explained without its text.
          if (error instanceof NotFoundError) return { id: policyId, version, deleted: true };
          throw error;
        }),
      ),
    );
    const results = data.map((result) => {
      const suggestions = result.result.details?.suggestions;
      return { ...compactResult(result), ...(Array.isArray(suggestions) ? { suggestions: compactErrors(suggestions.map(String)) } : {}) };
    });
    return { result: { results, policies } };
  },
};
