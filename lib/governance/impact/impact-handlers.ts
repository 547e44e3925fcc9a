import type { HttpResult } from '#lib/http/endpoint';
import { preferredWaitMs } from '#lib/http/prefer';

import type { GovernanceContext } from '../context';
import type { ImpactRow } from './impact-repository';
import { getImpactReport, listImpactResources, waitForImpactReport } from './impact-service';

const location = (id: string) => `/v1/computational-governance/impact-reports/${id}`;

/** 200 with the finished report when the caller asked to wait (Prefer: wait=N) and it finished in time, else 202 `{ impactReportId }`. */
export async function impactStartedResponse(
  ctx: GovernanceContext,
  headers: Readonly<Record<string, string | undefined>>,
  impact: ImpactRow,
  signal?: AbortSignal,
): Promise<HttpResult> {
  const asked = preferredWaitMs(headers);
  if (asked !== undefined) {
    const report = await waitForImpactReport(ctx, impact.id, asked, signal);
    if (report.status === 'completed' || report.status === 'failed')
      return { status: 200, body: report, headers: { 'preference-applied': `wait=${asked / 1000}`, location: location(impact.id) } };
  }
  return { status: 202, body: { impactReportId: impact.id }, headers: { location: location(impact.id) } };
}

export async function impactReportResponse(ctx: GovernanceContext, id: string): Promise<HttpResult> {
  return { status: 200, body: await getImpactReport(ctx, id) };
}

/** A page of resources, with the next as a Link header (RFC 8288). */
export async function impactResourcesResponse(ctx: GovernanceContext, id: string, query: Parameters<typeof listImpactResources>[2]): Promise<HttpResult> {
  const page = await listImpactResources(ctx, id, query);
  const change = query.change ? `change=${query.change}&` : '';
  const filters = `${change}${query.thresholdChanged !== undefined ? `thresholdChanged=${query.thresholdChanged}&` : ''}`;
  const headers: Record<string, string> = page.meta.next
    ? { link: `<${location(id)}/resources?${filters}limit=${query.limit}&after=${page.meta.next}>; rel="next"` }
    : {};
  return { status: 200, body: page, headers };
}
