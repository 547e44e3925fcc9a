import type { getEvaluationReportEndpoint, getEvaluationReportResultsEndpoint } from '#lib/governance/evaluation/endpoints';

import { call } from './client';
import type { Answer } from './contracts';
import { routes } from './routes';

export type EvaluationReport = Answer<typeof getEvaluationReportEndpoint>;
export type ResultsPage = Answer<typeof getEvaluationReportResultsEndpoint>;
export type EvaluationResult = ResultsPage['data'][number];

export const readReport = (id: string, signal?: AbortSignal): Promise<EvaluationReport> => call(routes.getEvaluationReport, { params: { id }, signal });

/** One page of a report's results: `after` is the `next` cursor of the page before. */
export const reportResults = (id: string, limit: number, after: string | undefined, signal?: AbortSignal): Promise<ResultsPage> =>
  call(routes.getEvaluationReportResults, { params: { id }, query: { limit, after }, signal });
