import {
  evaluateEndpoint,
  listDisagreementsEndpoint,
  listResultsEndpoint,
  readReportEndpoint,
  readReportResultsEndpoint,
} from '../../lib/governance/evaluation/endpoints';
import { evaluateDescriptor, listDisagreements, listResults } from '../../lib/governance/evaluation/evaluation-service';
import { readReport, readReportResults } from '../../lib/governance/evaluation/report-reading';
import { httpHandler } from '../../lib/http/handler';
import { startedResponse } from './started-response';

export const evaluate = httpHandler(evaluateEndpoint, async ({ body, principal, headers }) =>
  startedResponse(headers, (waitMs) => evaluateDescriptor(body, principal.subject, waitMs)),
);

/** The page after `next`, as a Link header (RFC 8288). */
const nextLink = (id: string, limit: number, next: string | null): Record<string, string> =>
  next ? { link: `</v1/computational-governance/evaluation-reports/${id}/results?limit=${limit}&after=${next}>; rel="next"` } : {};

export const readEvaluationReport = httpHandler(readReportEndpoint, async ({ params, query }) => {
  const report = await readReport(params.id, query);
  return { status: 200, body: report, headers: nextLink(params.id, report.resultsPage.limit, report.resultsPage.next) };
});

const NDJSON = /application\/(x-)?ndjson/i;

export const readEvaluationReportResults = httpHandler(readReportResultsEndpoint, async ({ params, query, headers }) => {
  const page = await readReportResults(params.id, query);
  const link = nextLink(params.id, page.limit, page.next);
  if (NDJSON.test(headers.accept ?? '')) {
    return { status: 200, text: page.lines.map((line) => `${line}\n`).join(''), headers: { 'content-type': 'application/x-ndjson', ...link } };
  }
  return { status: 200, body: { data: page.results, meta: { limit: page.limit, next: page.next } }, headers: link };
});

export const results = httpHandler(listResultsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await listResults(filters, { limit, offset }) };
});

export const cueDisagreements = httpHandler(listDisagreementsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await listDisagreements(filters, { limit, offset }) };
});
