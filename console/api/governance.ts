import type { listEnvironmentsEndpoint } from '#lib/governance/environments/endpoints';
import type { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';
import type { listResourceTypesEndpoint } from '#lib/governance/resource-types/endpoints';

import { get, type Query } from './client';
import type { Answer } from './contracts';

const BASE = '/v1/computational-governance';

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

export const listEntities = (collection: EntityCollection, filters: EntityFilters, page: PageRequest, signal?: AbortSignal) =>
  get<EntityPage>(`${BASE}/${collection}`, { query: { ...filters, ...page }, signal });

export const listEnvironments = (page: PageRequest, signal?: AbortSignal) =>
  get<Answer<typeof listEnvironmentsEndpoint>>(`${BASE}/environments`, { query: { ...page }, signal });

export const listResourceTypes = (page: PageRequest, signal?: AbortSignal) =>
  get<Answer<typeof listResourceTypesEndpoint>>(`${BASE}/resource-types`, { query: { ...page }, signal });
