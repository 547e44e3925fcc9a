import { getImpactReportEndpoint, listImpactResourcesEndpoint } from '#lib/governance/impact/endpoints';
import { impactReportResponse, impactResourcesResponse } from '#lib/governance/impact/impact-handlers';
import { httpHandler } from '#lib/http/handler';

export const getImpactReport = httpHandler(getImpactReportEndpoint, ({ params }) => impactReportResponse(params.id));

export const listImpactResources = httpHandler(listImpactResourcesEndpoint, ({ params, query }) => impactResourcesResponse(params.id, query));
