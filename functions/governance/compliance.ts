import * as compliance from '#lib/governance/compliance/compliance-service';
import { getComplianceSummaryEndpoint, getComplianceTrendEndpoint } from '#lib/governance/compliance/endpoints';
import { httpHandler } from '#lib/http/handler';

export const getComplianceSummary = httpHandler(getComplianceSummaryEndpoint, async ({ query }) => ({
  status: 200,
  body: await compliance.getComplianceSummary(query),
}));

export const getComplianceTrend = httpHandler(getComplianceTrendEndpoint, async ({ query }) => ({
  status: 200,
  body: await compliance.getComplianceTrend(query),
}));
