import type { AuditOutcome, HttpResult } from '#lib/http/endpoint';
import { preferredWaitMs } from '#lib/http/prefer';

import type { Started } from './evaluation-service';

/** Without `Prefer: wait=N` the call still gives the run this long before it answers 202. */
const DEFAULT_WAIT_MS = 10_000;

/**
 * The answer of a call that starts an evaluation: 200 with the finished report when the caller
 * asked to wait (`Prefer: wait=N`) and it finished in time, else 202 `{ reportId }`.
 */
export async function startedResponse(
  headers: Readonly<Record<string, string | undefined>>,
  start: (waitMs: number, answerOf: (finishedReportId: string) => AuditOutcome) => Promise<Started>,
): Promise<HttpResult> {
  const asked = preferredWaitMs(headers);
  const at = (reportId: string) => `/v1/computational-governance/evaluation-reports/${reportId}`;
  // What the call answers when the report finishes in time (for an audit record written with it).
  const answerOf = (reportId: string): AuditOutcome => ({ status: asked === undefined ? 202 : 200, location: at(reportId) });
  const started = await start(asked ?? DEFAULT_WAIT_MS, answerOf);
  const reportId = started.finished ? started.report.id : started.reportId;
  // Content-Location: the report answered is also there (and the audit record names it, as it names a Location).
  if (started.finished && asked !== undefined)
    return { status: 200, body: started.report, headers: { 'preference-applied': `wait=${asked / 1000}`, 'content-location': at(reportId) } };
  return { status: 202, body: { reportId }, headers: { location: at(reportId) } };
}
