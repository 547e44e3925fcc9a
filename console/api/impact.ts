import type { getImpactReportEndpoint, listImpactResourcesEndpoint } from '#lib/governance/impact/endpoints';
import type { policyEndpoints } from '#lib/governance/policies/endpoints';

import { ApiProblem, get, post } from './client';
import type { Answer } from './contracts';
import type { EntityCollection } from './governance';

const BASE = '/v1/computational-governance';

export type ImpactReport = Answer<typeof getImpactReportEndpoint>;
export type ImpactResource = Answer<typeof listImpactResourcesEndpoint>['data'][number];
export type Rollout = Answer<(typeof policyEndpoints)['getRollout']>;

/** Starts an impact report of a version: its id (the run goes through the queue). */
export const startImpact = async (collection: EntityCollection, id: string, version: number) =>
  (await post<{ impactReportId: string }>(`${BASE}/${collection}/${id}/impact`, { version })).impactReportId;

export const readImpact = (id: string, signal?: AbortSignal) => get<ImpactReport>(`${BASE}/impact-reports/${id}`, { signal });

/** The first `limit` newly failing resources of a completed report. */
export const newlyFailing = async (id: string, limit: number, signal?: AbortSignal) =>
  (await get<{ data: ImpactResource[] }>(`${BASE}/impact-reports/${id}/resources`, { query: { change: 'newlyFailing', limit }, signal })).data;

/** The entity's scheduled rollout, else its newest; undefined when it has none. */
export async function readRollout(collection: EntityCollection, id: string, signal?: AbortSignal): Promise<Rollout | undefined> {
  try {
    return await get<Rollout>(`${BASE}/${collection}/${id}/rollout`, { signal });
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 404) return undefined;
    throw error;
  }
}
