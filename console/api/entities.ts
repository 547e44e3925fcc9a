import type { z } from 'zod';

import type { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';
import type { metricRepresentation } from '#lib/governance/policies/entity';
import type { EndpointInputs } from '#lib/http/endpoint';

import type { PermissionOf } from './access';
import type { ApprovalRequested } from './approvals';
import { call } from './client';
import type { Answer } from './contracts';
import type { EvaluationReport } from './evaluation-reports';
import { type EntityCollection, type EntityContract, entityRoute } from './governance';
import { routes } from './routes';

/** One version of a policy or metric (a metric's has its thresholds). */
export type EntityVersion = Answer<(typeof policyEndpoints)['get']> | Answer<(typeof metricEndpoints)['get']>;
/** A metric's version: its thresholds read its number. */
export type MetricVersion = z.output<typeof metricRepresentation>;
type Published = Answer<(typeof policyEndpoints)['publish']> | Answer<(typeof metricEndpoints)['publish']>;

type Endpoints = typeof policyEndpoints | typeof metricEndpoints;

/** What each action on a policy or metric needs: the permissions their endpoints' contracts declare (the type fails when a contract asks for another). */
export const ENTITY_PERMISSIONS = {
  /** Create, edit (a draft, or the next version), test. */
  edit: 'policies:edit' satisfies PermissionOf<Endpoints['create']> & PermissionOf<Endpoints['update']> & PermissionOf<Endpoints['test']>,
  /** Publish, status moves (requests for approval under four-eyes). */
  publish: 'policies:publish' satisfies PermissionOf<Endpoints['publish']> & PermissionOf<Endpoints['changeStatusOf']>,
} as const;

/** What the editor sends: the fields of the policy input (lib/governance/policies/entity.ts), null for an empty one. */
export type EntityInput = Record<string, unknown>;
/** The body of a policies' endpoint as its contract types it: the editor's fields are checked by the API (400 naming each). */
type Body<K extends 'create' | 'update' | 'status'> = NonNullable<EndpointInputs<EntityContract<K>>['body']>;

export const readEntity = (collection: EntityCollection, id: string, signal?: AbortSignal): Promise<EntityVersion> =>
  call(entityRoute(collection, 'get'), { params: { id }, signal });

/** Every version, newest first (the API answers them oldest first). */
export const listVersions = async (collection: EntityCollection, id: string, signal?: AbortSignal) =>
  ((await call(entityRoute(collection, 'versions'), { params: { id }, signal })) as { data: EntityVersion[] }).data.reverse();

export const createEntity = (collection: EntityCollection, input: EntityInput): Promise<EntityVersion> =>
  call(entityRoute(collection, 'create'), { body: input as Body<'create'> });

/** A draft is edited in place; any other status gets its next version, a draft. */
export const updateEntity = (collection: EntityCollection, id: string, input: EntityInput): Promise<EntityVersion> =>
  call(entityRoute(collection, 'update'), { params: { id }, body: input as Body<'update'> });

/** The version moved; under four-eyes (202) the request for approval instead. */
export const moveEntity = (collection: EntityCollection, id: string, status: string, version: number): Promise<EntityVersion | ApprovalRequested> =>
  call(entityRoute(collection, 'status'), { params: { id }, body: { status, version } as Body<'status'> });

/**
 * The newest version becomes enabled and is evaluated against every resource: the report of that,
 * when one started; under four-eyes (202) the request for approval instead.
 */
export const publishEntity = (collection: EntityCollection, id: string): Promise<Published | ApprovalRequested> =>
  call(entityRoute(collection, 'publish'), { params: { id } });

export interface TestInput {
  readonly environment: string;
  /** YAML or JSON text; none: every resource of the environment (the perimeter). */
  readonly descriptor?: string;
}

/** A dry run of a version: the finished report, or the id of the one still running. */
export const testEntity = (
  collection: EntityCollection,
  id: string,
  version: number,
  input: TestInput,
  waitSeconds: number,
): Promise<EvaluationReport | { reportId: string }> =>
  call(entityRoute(collection, 'test'), { params: { id }, body: input, query: { version }, headers: { prefer: `wait=${waitSeconds}` } });

/** The latest result of each resource for a policy or metric, one page. */
export const latestResults = (id: string, page: { limit: number; offset: number }, signal?: AbortSignal) =>
  call(routes.listResults, { query: { policyId: id, latest: 'true', ...page }, signal });
