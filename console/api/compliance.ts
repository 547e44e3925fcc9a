import type { getComplianceSummaryEndpoint, getComplianceTrendEndpoint } from '#lib/governance/compliance/endpoints';

import { call, type Query } from './client';
import type { Answer } from './contracts';
import { routes } from './routes';

export type ComplianceSummary = Answer<typeof getComplianceSummaryEndpoint>;
export type ComplianceTrend = Answer<typeof getComplianceTrendEndpoint>;
/** Resources by passing / failing and worst outcome (a summary's, a breakdown's or a day's). */
export type ResourceCounts = ComplianceSummary['resources'];

/** What the Overview counts: the resources of an environment, of a type, the results of one policy. */
export interface ComplianceFilters extends Query {
  environment?: string;
  resourceType?: string;
  policyId?: string;
}

export const complianceSummary = (filters: ComplianceFilters, signal?: AbortSignal): Promise<ComplianceSummary> =>
  call(routes.getComplianceSummary, { query: filters, signal });

/** The trend has no policyId filter: the resources of the environment and type, per day. */
export const complianceTrend = ({ environment, resourceType }: ComplianceFilters, days: number, signal?: AbortSignal) =>
  call(routes.getComplianceTrend, { query: { environment, resourceType, days }, signal });
