import { z } from 'zod';

import { endpoint } from '#lib/http/endpoint';

import { impactReport, impactResourcesPage, impactResourcesQuery } from './impact';

const impactId = z.object({ id: z.uuid({ error: 'id must be a UUID' }) });
const tags = ['impact-reports'];

export const getImpactReportEndpoint = endpoint({
  operationId: 'getImpactReport',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/impact-reports/{id}',
  summary: 'An impact report: its run, and once it completed, the resources newly failing, newly passing, still failing, still passing and never judged',
  tags,
  params: impactId,
  responses: { 200: { description: 'The impact report', schema: impactReport }, 404: { description: 'No impact report has this id' } },
});

export const listImpactResourcesEndpoint = endpoint({
  operationId: 'listImpactResources',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/impact-reports/{id}/resources',
  summary: "The resources of a completed impact report, of one change or all, with the candidate's errors, by environment and resource id",
  tags,
  params: impactId,
  query: impactResourcesQuery,
  responses: {
    200: { description: 'A page; the Link header (rel="next") names the next', schema: impactResourcesPage },
    404: { description: 'No impact report has this id' },
    409: { description: 'Its run has not completed' },
  },
});
