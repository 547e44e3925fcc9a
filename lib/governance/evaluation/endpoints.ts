import { endpoint } from '#lib/http/endpoint';
import { listOf, paginationQuery } from '#lib/http/pagination';

import { cueDisagreement, disagreementFilters } from './disagreement';
import { evaluateInput, evaluationReport, evaluationResult, reportAccepted, reportId, reportResultsPage, reportResultsQuery, resultListQuery } from './report';

export const evaluateEndpoint = endpoint({
  operationId: 'evaluate',
  access: { permission: 'evaluations:run', scope: 'resource' },
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

export const getEvaluationReportEndpoint = endpoint({
  operationId: 'getEvaluationReport',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/evaluation-reports/{id}',
  summary: 'An evaluation report, its counts by outcome and the first page of its results (up to 1000); `passed` is the deploy gate',
  tags: ['evaluation'],
  params: reportId,
  query: reportResultsQuery,
  responses: {
    200: { description: 'The report; a Link header (rel="next") names the next page of results when there is one', schema: evaluationReport },
    404: { description: 'No report has this id' },
  },
});

export const getEvaluationReportResultsEndpoint = endpoint({
  operationId: 'getEvaluationReportResults',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/evaluation-reports/{id}/results',
  summary: "A page of a report's results, in the order they were written; `Accept: application/x-ndjson` answers one result per line",
  tags: ['evaluation'],
  params: reportId,
  query: reportResultsQuery,
  responses: {
    200: { description: 'The page (JSON, or NDJSON when asked); meta.next, and a Link header (rel="next"), name the next page', schema: reportResultsPage },
    404: { description: 'No report has this id' },
  },
});

export const listResultsEndpoint = endpoint({
  operationId: 'listResults',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/results',
  summary: 'Stored results, newest first; latest=true keeps the newest per (entity, resource, environment)',
  tags: ['evaluation'],
  query: resultListQuery,
  responses: { 200: { description: 'A page of results', schema: listOf(evaluationResult, 'EvaluationResultList') } },
});

export const listCueDisagreementsEndpoint = endpoint({
  operationId: 'listCueDisagreements',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/cue-disagreements',
  summary:
    'Pairs (policy version, resource) the native and reference CUE evaluators judged differently while cue-config.evaluator was shadow, ' +
    'newest first, with both verdicts',
  tags: ['evaluation'],
  query: paginationQuery.extend(disagreementFilters.shape),
  responses: { 200: { description: 'A page of disagreements', schema: listOf(cueDisagreement, 'CueDisagreementList') } },
});
