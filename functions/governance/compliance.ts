import * as compliance from '#lib/governance/compliance/compliance-service';
import { complianceSummaryEndpoint, complianceTrendEndpoint } from '#lib/governance/compliance/endpoints';
import { httpHandler } from '#lib/http/handler';

export const getComplianceSummary = httpHandler(complianceSummaryEndpoint, async ({ query }) => ({
  status: 200,
  body: await compliance.getComplianceSummary(query),
}));

export const getComplianceTrend = httpHandler(complianceTrendEndpoint, async ({ query }) => ({
  status: 200,
  body: await compliance.getComplianceTrend(query),
}));
