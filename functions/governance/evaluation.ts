import { evaluateEndpoint, listResultsEndpoint, readReportEndpoint } from '../../lib/governance/evaluation/endpoints';
import { evaluateDescriptor, listResults, readReport } from '../../lib/governance/evaluation/evaluation-service';
import { httpHandler } from '../../lib/http/handler';
import { startedResponse } from './started-response';

export const evaluate = httpHandler(evaluateEndpoint, async ({ body, principal, headers }) =>
  startedResponse(headers, (waitMs) => evaluateDescriptor(body, principal.subject, waitMs)),
);

export const readEvaluationReport = httpHandler(readReportEndpoint, async ({ params }) => ({ status: 200, body: await readReport(params.id) }));

export const results = httpHandler(listResultsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await listResults(filters, { limit, offset }) };
});
