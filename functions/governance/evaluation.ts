import { speaksFor } from '#lib/authorization/resource-voice';
import {
  evaluateEndpoint,
  getEvaluationReportEndpoint,
  getEvaluationReportResultsEndpoint,
  listCueDisagreementsEndpoint,
  listResultsEndpoint,
} from '#lib/governance/evaluation/endpoints';
import * as evaluation from '#lib/governance/evaluation/evaluation-service';
import * as reports from '#lib/governance/evaluation/report-reading';
import { startedResponse } from '#lib/governance/evaluation/started-response';
import { governanceHandler } from '#lib/governance/governance-handler';

/** The deploy gate: its audit records are written in its transaction (or ahead, before a run that is not one), never ahead of it for nothing. */
export const evaluate = governanceHandler(
  evaluateEndpoint,
  async ({ body, principal, headers, authorize, signal, auditIn, recordAhead }, ctx) => {
    const scope = { resourceType: body.resourceType, environment: body.environment };
    authorize(scope);
    return startedResponse(headers, (waitMs, answerOf) =>
      evaluation.evaluate(ctx, body, {
        subject: principal.subject,
        speaksFor: body.dryRun !== true && speaksFor(principal, scope),
        waitMs,
        signal,
        audit: { within: (tx, reportId) => auditIn(tx, answerOf(reportId)), ahead: recordAhead },
      }),
    );
  },
  { ownAuditRecords: true },
);

/** The page after `next`, as a Link header (RFC 8288). */
const nextLink = (id: string, limit: number, next: string | null): Record<string, string> =>
  next ? { link: `</v1/computational-governance/evaluation-reports/${id}/results?limit=${limit}&after=${next}>; rel="next"` } : {};

export const getEvaluationReport = governanceHandler(getEvaluationReportEndpoint, async ({ params, query }, ctx) => {
  const report = await reports.getEvaluationReport(ctx, params.id, query);
  return { status: 200, body: report, headers: nextLink(params.id, report.resultsPage.limit, report.resultsPage.next) };
});

const NDJSON = /application\/(x-)?ndjson/i;

export const getEvaluationReportResults = governanceHandler(getEvaluationReportResultsEndpoint, async ({ params, query, headers }, ctx) => {
  const page = await reports.getEvaluationReportResults(ctx, params.id, query);
  const link = nextLink(params.id, page.limit, page.next);
  if (NDJSON.test(headers.accept ?? '')) {
    return { status: 200, text: page.lines.map((line) => `${line}\n`).join(''), headers: { 'content-type': 'application/x-ndjson', ...link } };
  }
  return { status: 200, body: { data: page.results, meta: { limit: page.limit, next: page.next } }, headers: link };
});

export const listResults = governanceHandler(listResultsEndpoint, async ({ query }, ctx) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await evaluation.listResults(ctx, filters, { limit, offset }) };
});

export const listCueDisagreements = governanceHandler(listCueDisagreementsEndpoint, async ({ query }, ctx) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await evaluation.listCueDisagreements(ctx, filters, { limit, offset }) };
});
