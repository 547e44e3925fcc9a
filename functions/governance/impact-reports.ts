import { governanceHandler } from '#lib/governance/governance-handler';
import { getImpactReportEndpoint, listImpactResourcesEndpoint } from '#lib/governance/impact/endpoints';
import { impactReportResponse, impactResourcesResponse } from '#lib/governance/impact/impact-handlers';

export const getImpactReport = governanceHandler(getImpactReportEndpoint, ({ params }, ctx) => impactReportResponse(ctx, params.id));

export const listImpactResources = governanceHandler(listImpactResourcesEndpoint, ({ params, query }, ctx) => impactResourcesResponse(ctx, params.id, query));
