import type { listEnvironmentsEndpoint } from '#lib/governance/environments/endpoints';
import type { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';
import type { listResourceTypesEndpoint } from '#lib/governance/resource-types/endpoints';

import { call, type Query } from './client';
import type { Answer } from './contracts';
import { routes } from './routes';

/** Policies and metrics share their endpoints (one path segment apart). */
export type EntityCollection = 'policies' | 'metrics';
export type EntityPage = Answer<(typeof policyEndpoints)['list']> | Answer<(typeof metricEndpoints)['list']>;
export type Entity = EntityPage['data'][number];

/** The list endpoints' page: `limit` (at most 100) and `offset`. */
export interface PageRequest {
  readonly limit: number;
  readonly offset: number;
}

/** The list filters of policies and metrics (lib/governance/policies/entity.ts: entityFilters). */
export interface EntityFilters extends Query {
  status?: string;
  resourceType?: string;
  environment?: string;
  trigger?: string;
  text?: string;
}

/**
 * The route of a policies' endpoint, or of its metrics' twin: both take the same inputs (one
 * contract factory, lib/governance/policies/endpoints.ts), so a metric's is typed as the policy's;
 * the functions that call them name both answers.
 */
export const entityRoute = <K extends keyof typeof POLICY_ROUTES>(collection: EntityCollection, key: K) =>
  (collection === 'metrics' ? METRIC_ROUTES[key] : POLICY_ROUTES[key]) as (typeof POLICY_ROUTES)[K];

/** The contract of a policies' endpoint (its metrics' twin takes the same inputs). */
export type EntityContract<K extends keyof typeof POLICY_ROUTES> = NonNullable<(typeof POLICY_ROUTES)[K]['contract']>;

const POLICY_ROUTES = {
  list: routes.listPolicy,
  get: routes.getPolicy,
  versions: routes.listVersionsOfPolicy,
  create: routes.createPolicy,
  update: routes.updatePolicy,
  status: routes.changeStatusOfPolicy,
  publish: routes.publishPolicy,
  test: routes.testPolicy,
  impact: routes.impactOfPolicy,
  rollout: routes.getRolloutOfPolicy,
};
const METRIC_ROUTES = {
  list: routes.listMetric,
  get: routes.getMetric,
  versions: routes.listVersionsOfMetric,
  create: routes.createMetric,
  update: routes.updateMetric,
  status: routes.changeStatusOfMetric,
  publish: routes.publishMetric,
  test: routes.testMetric,
  impact: routes.impactOfMetric,
  rollout: routes.getRolloutOfMetric,
};

export const listEntities = (collection: EntityCollection, filters: EntityFilters, page: PageRequest, signal?: AbortSignal): Promise<EntityPage> =>
  call(entityRoute(collection, 'list'), { query: { ...filters, ...page }, signal });

export const listEnvironments = (page: PageRequest, signal?: AbortSignal): Promise<Answer<typeof listEnvironmentsEndpoint>> =>
  call(routes.listEnvironments, { query: { ...page }, signal });

export const listResourceTypes = (page: PageRequest, signal?: AbortSignal): Promise<Answer<typeof listResourceTypesEndpoint>> =>
  call(routes.listResourceTypes, { query: { ...page }, signal });
