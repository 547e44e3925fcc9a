import type { getImpactReportEndpoint, listImpactResourcesEndpoint } from '#lib/governance/impact/endpoints';
import type { policyEndpoints } from '#lib/governance/policies/endpoints';

import { ApiProblem, call } from './client';
import type { Answer } from './contracts';
import { type EntityCollection, entityRoute } from './governance';
import { routes } from './routes';

export type ImpactReport = Answer<typeof getImpactReportEndpoint>;
export type ImpactResource = Answer<typeof listImpactResourcesEndpoint>['data'][number];
export type Rollout = Answer<(typeof policyEndpoints)['getRollout']>;

/** Starts an impact report of a version: its id (the run goes through the queue). */
export const startImpact = async (collection: EntityCollection, id: string, version: number) =>
  ((await call(entityRoute(collection, 'impact'), { params: { id }, body: { version } })) as { impactReportId: string }).impactReportId;

export const readImpact = (id: string, signal?: AbortSignal): Promise<ImpactReport> => call(routes.getImpactReport, { params: { id }, signal });

/** The first `limit` newly failing resources of a completed report. */
export const newlyFailing = async (id: string, limit: number, signal?: AbortSignal) =>
  (await call(routes.listImpactResources, { params: { id }, query: { change: 'newlyFailing', limit }, signal })).data;

/** The entity's scheduled rollout, else its newest; undefined when it has none. */
export async function readRollout(collection: EntityCollection, id: string, signal?: AbortSignal): Promise<Rollout | undefined> {
  try {
    return await call(entityRoute(collection, 'rollout'), { params: { id }, signal });
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 404) return undefined;
    throw error;
  }
}
