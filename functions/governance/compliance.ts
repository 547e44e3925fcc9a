import { complianceSummary, complianceTrend } from '../../lib/governance/compliance/compliance-service';
import { complianceSummaryEndpoint, complianceTrendEndpoint } from '../../lib/governance/compliance/endpoints';
import { httpHandler } from '../../lib/http/handler';

export const summary = httpHandler(complianceSummaryEndpoint, async ({ query }) => ({ status: 200, body: await complianceSummary(query) }));

export const trend = httpHandler(complianceTrendEndpoint, async ({ query }) => ({ status: 200, body: await complianceTrend(query) }));
