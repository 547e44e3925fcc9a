import type { getEvaluationReportEndpoint, getEvaluationReportResultsEndpoint } from '#lib/governance/evaluation/endpoints';

import { get } from './client';
import type { Answer } from './contracts';

const BASE = '/v1/computational-governance/evaluation-reports';

export type EvaluationReport = Answer<typeof getEvaluationReportEndpoint>;
export type ResultsPage = Answer<typeof getEvaluationReportResultsEndpoint>;
export type EvaluationResult = ResultsPage['data'][number];

export const readReport = (id: string, signal?: AbortSignal) => get<EvaluationReport>(`${BASE}/${id}`, { signal });

/** One page of a report's results: `after` is the `next` cursor of the page before. */
export const reportResults = (id: string, limit: number, after: string | undefined, signal?: AbortSignal) =>
  get<ResultsPage>(`${BASE}/${id}/results`, { query: { limit, after }, signal });
