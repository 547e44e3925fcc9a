import { endpoint } from '../../http/endpoint';
import { listOf, paginationQuery } from '../../http/pagination';
import { evaluateInput, evaluationReport, evaluationResult, reportAccepted, reportId, resultFilters } from './report';

export const evaluateEndpoint = endpoint({
  operationId: 'evaluate',
  method: 'POST',
  path: '/v1/computational-governance/evaluate',
  summary: 'Evaluate a resource descriptor against the enabled and grace policies and metrics of its type and environment',
  tags: ['evaluation'],
  body: evaluateInput,
  responses: {
    200: { description: 'The finished report (with Prefer: wait=N, when it finished in time)', schema: evaluationReport },
    202: { description: 'Accepted: read the report at /v1/computational-governance/evaluation-reports/{reportId}', schema: reportAccepted },
  },
});

export const readReportEndpoint = endpoint({
  operationId: 'getEvaluationReport',
  method: 'GET',
  path: '/v1/computational-governance/evaluation-reports/{id}',
  summary: 'An evaluation report with its results; `passed` is the deploy gate',
  tags: ['evaluation'],
  params: reportId,
  responses: { 200: { description: 'The report', schema: evaluationReport }, 404: { description: 'No report has this id' } },
});

export const listResultsEndpoint = endpoint({
  operationId: 'listResults',
  method: 'GET',
  path: '/v1/computational-governance/results',
  summary: 'Stored results, newest first; latest=true keeps the newest per (entity, resource, environment)',
  tags: ['evaluation'],
  query: paginationQuery.extend(resultFilters.shape),
  responses: { 200: { description: 'A page of results', schema: listOf(evaluationResult, 'EvaluationResultList') } },
});
