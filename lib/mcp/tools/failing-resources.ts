import { z } from 'zod';

import { listResultsEndpoint } from '#lib/governance/evaluation/endpoints';
import { SEVERITIES } from '#lib/governance/policies/entity';

import { governanceTool } from '../tool';

const FAILING = ['error', 'failed'] as const;

export const listFailingResources = governanceTool({
  name: 'list_failing_resources',
  title: 'List failing resources',
  description:
    'The resources whose newest verdict of a policy fails (error, or an evaluation that failed), newest first, by owner, resource type or environment: what blocks deploys now.',
  inputSchema: {
    resourceType: z.string().optional(),
    environment: z.string().optional(),
    policyId: z.uuid().optional().describe('Only the verdicts of this policy or metric'),
    owner: z.string().min(1).max(512).optional().describe("Only the resources whose descriptor names this owner (the resource type's owner field)"),
    limit: z.number().int().min(1).max(100).default(50),
  },
  outputSchema: {
    items: z.array(
      z.object({
        resourceId: z.string(),
        displayName: z.string().nullable(),
        resourceType: z.string(),
        environment: z.string(),
        policyId: z.string(),
        policyVersion: z.number().int(),
        severity: z.enum(SEVERITIES),
        outcome: z.enum(FAILING),
        errors: z.array(z.string()),
        evaluatedAt: z.string(),
      }),
    ),
    total: z.number().int().describe('How many failing verdicts match in all'),
  },
  readOnly: true,
  async run({ resourceType, environment, policyId, owner, limit }, { api }) {
    const pages = await Promise.all(
      FAILING.map(
        async (outcome) =>
          (await api.call(listResultsEndpoint, { query: { latest: 'true', outcome, resourceType, environment, policyId, owner, limit } })).body,
      ),
    );
    const items = pages
      .flatMap((page) => page.data)
      .sort((a, b) => b.creationTime.localeCompare(a.creationTime))
      .slice(0, limit)
      .map((result) => ({
        resourceId: result.resource.id,
        displayName: result.resource.displayName,
        resourceType: result.resource.resourceType,
        environment: result.resource.environment,
        policyId: result.governanceEntityId,
        policyVersion: result.governanceEntityVersion,
        severity: result.severity,
        outcome: result.outcome as (typeof FAILING)[number],
        errors: result.result.errors,
        evaluatedAt: result.creationTime,
      }));
    return { items, total: pages.reduce((sum, page) => sum + page.meta.pagination.total, 0) };
  },
});
