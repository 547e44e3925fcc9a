import type { HttpResult } from '#lib/http/endpoint';
import { preferredWaitMs } from '#lib/http/prefer';

import type { Started } from './evaluation-service';

/** Without `Prefer: wait=N` the call still gives the run this long before it answers 202. */
const DEFAULT_WAIT_MS = 10_000;

/**
 * The answer of a call that starts an evaluation: 200 with the finished report when the caller
 * asked to wait (`Prefer: wait=N`) and it finished in time, else 202 `{ reportId }`.
 */
export async function startedResponse(headers: Readonly<Record<string, string | undefined>>, start: (waitMs: number) => Promise<Started>): Promise<HttpResult> {
  const asked = preferredWaitMs(headers);
  const started = await start(asked ?? DEFAULT_WAIT_MS);
  const reportId = started.finished ? started.report.id : started.reportId;
  const at = `/v1/computational-governance/evaluation-reports/${reportId}`;
  // Content-Location: the report answered is also there (and the audit record names it, as it names a Location).
  if (started.finished && asked !== undefined)
    return { status: 200, body: started.report, headers: { 'preference-applied': `wait=${asked / 1000}`, 'content-location': at } };
  return { status: 202, body: { reportId }, headers: { location: at } };
}
