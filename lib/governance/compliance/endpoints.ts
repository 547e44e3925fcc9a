import { endpoint } from '#lib/http/endpoint';

import { complianceSummary, complianceTrend, summaryQuery, trendQuery } from './compliance';

export const getComplianceSummaryEndpoint = endpoint({
  operationId: 'getComplianceSummary',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/compliance/summary',
  summary:
    'Compliance now, over the newest result of each (policy or metric, resource, environment) of the enabled and grace entities: ' +
    'resources passing and failing, results by outcome, the policies that fail most, per environment and resource type',
  tags: ['compliance'],
  query: summaryQuery,
  responses: { 200: { description: 'The summary', schema: complianceSummary } },
});

export const getComplianceTrendEndpoint = endpoint({
  operationId: 'getComplianceTrend',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/compliance/trend',
  summary: 'Compliance per day (UTC): the resources evaluated, passing and failing at the end of each day (today: now)',
  tags: ['compliance'],
  query: trendQuery,
  responses: { 200: { description: 'One entry per day, oldest first', schema: complianceTrend } },
});
