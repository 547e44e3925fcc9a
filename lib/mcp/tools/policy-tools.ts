import { z } from 'zod';

import { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';
import { SEVERITIES } from '#lib/governance/policies/entity';
import { STATUSES } from '#lib/governance/policies/lifecycle';

import { governanceTool } from '../tool';

const KINDS = ['policy', 'metric'] as const;
export const endpointsOf = (kind: (typeof KINDS)[number]) => (kind === 'metric' ? metricEndpoints : policyEndpoints);

/** A policy or metric as the tools answer it (one version). */
export const entitySummary = z.object({
  id: z.string(),
  kind: z.enum(KINDS),
  name: z.string(),
  version: z.number().int(),
  status: z.enum(STATUSES),
  severity: z.enum(SEVERITIES),
  resourceType: z.string(),
  environment: z.string().nullable().describe('null: every environment'),
  engine: z.string().nullable(),
  trigger: z.string(),
});

type Representation = Omit<z.output<typeof entitySummary>, 'kind'> & Record<string, unknown>;

export const summaryOf = (kind: (typeof KINDS)[number], entity: Representation): z.output<typeof entitySummary> => ({
  id: entity.id,
  kind,
  name: entity.name,
  version: entity.version,
  status: entity.status,
  severity: entity.severity,
  resourceType: entity.resourceType,
  environment: entity.environment,
  engine: entity.engine,
  trigger: entity.trigger,
});

export const listPolicies = governanceTool({
  name: 'list_policies',
  title: 'List policies and metrics',
  description:
    'Policies and metrics (the newest version of each), filtered as GET /policies filters them: by status, resource type, environment, or text in the name or description.',
  inputSchema: {
    kind: z
      .enum([...KINDS, 'all'])
      .default('all')
      .describe('policy, metric, or all (default)'),
    status: z.array(z.enum(STATUSES)).optional().describe('Only these statuses (enabled and grace are in force)'),
    resourceType: z.string().optional(),
    environment: z.string().optional(),
    text: z.string().max(200).optional().describe('Words in the name or the description'),
    limit: z.number().int().min(1).max(100).default(50).describe('At most this many of each kind (default 50)'),
  },
  outputSchema: { items: z.array(entitySummary), total: z.number().int().describe('How many match, of each kind asked, in all') },
  readOnly: true,
  async run({ kind, status, resourceType, environment, text, limit }, { api }) {
    const kinds = kind === 'all' ? KINDS : [kind];
    const query = { status: status?.join(','), resourceType, environment, text, limit };
    const pages = await Promise.all(kinds.map(async (each) => ({ each, page: (await api.call(endpointsOf(each).list, { query })).body })));
    return {
      items: pages.flatMap(({ each, page }) => page.data.map((entity) => summaryOf(each, entity))),
      total: pages.reduce((sum, { page }) => sum + page.meta.pagination.total, 0),
    };
  },
});

export const getPolicy = governanceTool({
  name: 'get_policy',
  title: 'Read a policy',
  description: 'One policy or metric: its script (CUE, or the rule an LLM judges), its status, severity and environment, and every version.',
  inputSchema: {
    id: z.uuid(),
    kind: z.enum(KINDS).default('policy'),
    version: z.number().int().min(1).optional().describe('This version (default: the newest)'),
  },
  outputSchema: {
    ...entitySummary.shape,
    description: z.string(),
    cueScript: z.string().nullable(),
    llmRule: z.string().nullable(),
    remoteEngineUrl: z.string().nullable(),
    versions: z.array(z.object({ version: z.number().int(), status: z.enum(STATUSES), updatedAt: z.string(), updatedBy: z.string() })),
  },
  readOnly: true,
  async run({ id, kind, version }, { api }) {
    const endpoints = endpointsOf(kind);
    const [{ body: entity }, { body: versions }] = await Promise.all([
      api.call(endpoints.get, { params: { id }, query: { version } }),
      api.call(endpoints.listVersionsOf, { params: { id } }),
    ]);
    return {
      ...summaryOf(kind, entity),
      description: entity.description,
      cueScript: entity.cueScript,
      llmRule: entity.llmRule,
      remoteEngineUrl: entity.remoteEngineUrl,
      versions: versions.data.map(({ version: each, status, updatedAt, updatedBy }) => ({ version: each, status, updatedAt, updatedBy })),
    };
  },
});
