import type { listResultsEndpoint } from '#lib/governance/evaluation/endpoints';
import type { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';

import { call, type Query } from './client';
import type { Answer } from './contracts';
import type { PageRequest } from './governance';
import { routes } from './routes';

export type ResultPage = Answer<typeof listResultsEndpoint>;
export type Result = ResultPage['data'][number];
type EntityAnswer = Answer<(typeof policyEndpoints)['get']> | Answer<(typeof metricEndpoints)['get']>;

/** The filters of GET /results (lib/governance/evaluation/report.ts: resultFilters). */
export interface ResultFilters extends Query {
  resourceId?: string;
  environment?: string;
  resourceType?: string;
  outcome?: string;
}

/** The newest result of each (policy or metric, resource, environment) that matches, one page. */
export const listLatestResults = (filters: ResultFilters, page: PageRequest, signal?: AbortSignal): Promise<ResultPage> =>
  call(routes.listResults, { query: { ...filters, latest: 'true', ...page }, signal });

/** The page of a result's policy or metric. */
export const entityPath = (result: Pick<Result, 'governanceEntityType' | 'governanceEntityId'>) =>
  `/${result.governanceEntityType === 'policy' ? 'policies' : 'metrics'}/${result.governanceEntityId}`;

/** The names of the policies and metrics of some results (one call each, the distinct ones): id -> name. */
export async function entityNames(results: readonly Result[], signal?: AbortSignal): Promise<Map<string, string>> {
  const distinct = new Map(results.map((result) => [result.governanceEntityId, result]));
  const named = await Promise.all(
    [...distinct.values()].map((result) =>
      (
        call(result.governanceEntityType === 'metric' ? routes.getMetric : routes.getPolicy, {
          params: { id: result.governanceEntityId },
          signal,
        }) as Promise<EntityAnswer>
      ).then((entity) => [entity.id, entity.name] as const),
    ),
  );
  return new Map(named);
}
