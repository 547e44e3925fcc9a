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
import { httpHandler } from '#lib/http/handler';

export const evaluate = httpHandler(evaluateEndpoint, async ({ body, principal, headers, authorize, signal }) => {
  authorize({ resourceType: body.resourceType, environment: body.environment });
  return startedResponse(headers, (waitMs) => evaluation.evaluate(body, principal.subject, waitMs, signal));
});

/** The page after `next`, as a Link header (RFC 8288). */
const nextLink = (id: string, limit: number, next: string | null): Record<string, string> =>
  next ? { link: `</v1/computational-governance/evaluation-reports/${id}/results?limit=${limit}&after=${next}>; rel="next"` } : {};

export const getEvaluationReport = httpHandler(getEvaluationReportEndpoint, async ({ params, query }) => {
  const report = await reports.getEvaluationReport(params.id, query);
  return { status: 200, body: report, headers: nextLink(params.id, report.resultsPage.limit, report.resultsPage.next) };
});

const NDJSON = /application\/(x-)?ndjson/i;

export const getEvaluationReportResults = httpHandler(getEvaluationReportResultsEndpoint, async ({ params, query, headers }) => {
  const page = await reports.getEvaluationReportResults(params.id, query);
  const link = nextLink(params.id, page.limit, page.next);
  if (NDJSON.test(headers.accept ?? '')) {
    return { status: 200, text: page.lines.map((line) => `${line}\n`).join(''), headers: { 'content-type': 'application/x-ndjson', ...link } };
  }
  return { status: 200, body: { data: page.results, meta: { limit: page.limit, next: page.next } }, headers: link };
});

export const listResults = httpHandler(listResultsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await evaluation.listResults(filters, { limit, offset }) };
});

export const listCueDisagreements = httpHandler(listCueDisagreementsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await evaluation.listCueDisagreements(filters, { limit, offset }) };
});
