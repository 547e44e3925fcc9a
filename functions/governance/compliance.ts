import * as compliance from '#lib/governance/compliance/compliance-service';
import { getComplianceSummaryEndpoint, getComplianceTrendEndpoint } from '#lib/governance/compliance/endpoints';
import { governanceHandler } from '#lib/governance/governance-handler';

export const getComplianceSummary = governanceHandler(getComplianceSummaryEndpoint, async ({ query }, ctx) => ({
  status: 200,
  body: await compliance.getComplianceSummary(ctx, query),
}));

export const getComplianceTrend = governanceHandler(getComplianceTrendEndpoint, async ({ query }, ctx) => ({
  status: 200,
  body: await compliance.getComplianceTrend(ctx, query),
}));
