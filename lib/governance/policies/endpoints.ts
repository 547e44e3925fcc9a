import { z } from 'zod';

import { approvalRequested } from '#lib/authorization/approval';
import { endpoint } from '#lib/http/endpoint';
import { listOf } from '#lib/http/pagination';

import { evaluationReport, evaluationResult, passiveResultInput, policyTestInput, reportAccepted } from '../evaluation/report';
import { impactAccepted, impactInput, impactReport } from '../impact/impact';
import { rolloutInput, rolloutRepresentation } from '../rollouts/rollout';
import {
  entityId,
  type EntityKind,
  entityListQuery,
  metricInput,
  metricRepresentation,
  policyInput,
  policyRepresentation,
  publishedMetric,
  publishedPolicy,
  statusMove,
  versionQuery,
} from './entity';

/** The answer of a change that became a request for approval (authorization.four-eyes). */
const fourEyes = { 202: { description: 'Four-eyes: nothing changed yet; the request for approval, at the Location header', schema: approvalRequested } };

const COLLECTION: Record<EntityKind, string> = { policy: 'policies', metric: 'metrics' };
const TITLE: Record<EntityKind, string> = { policy: 'Policy', metric: 'Metric' };

/** The endpoints of one kind of governance entity; policies and metrics share them. */
function entityEndpoints(kind: EntityKind) {
  const base = `/v1/computational-governance/${COLLECTION[kind]}`;
  const tags = [COLLECTION[kind]];
  const input = kind === 'policy' ? policyInput : metricInput;
  const representation = kind === 'policy' ? policyRepresentation : metricRepresentation;
  const op = (verb: string) => `${verb}${TITLE[kind]}`;
  const missing = { 404: { description: `No ${kind} has this id` } };
  return {
    create: endpoint({
      operationId: op('create'),
      access: { permission: 'policies:edit', scope: 'resource' },
      method: 'POST',
      path: base,
      summary: `Create a ${kind} (a draft, version 1)`,
      tags,
      body: input,
      responses: { 201: { description: 'Created', schema: representation } },
    }),
    list: endpoint({
      operationId: op('list'),
      access: { permission: 'governance:read', scope: 'anywhere' },
      method: 'GET',
      path: base,
      summary: `${TITLE[kind]} entities (newest version of each), filtered`,
      tags,
      query: entityListQuery,
      responses: { 200: { description: 'A page', schema: listOf(representation, `${TITLE[kind]}List`) } },
    }),
    get: endpoint({
      operationId: op('get'),
      access: { permission: 'governance:read', scope: 'anywhere' },
      method: 'GET',
      path: `${base}/{id}`,
      summary: `A ${kind}: its newest version, or the one named by ?version=`,
      tags,
      params: entityId,
      query: versionQuery,
      responses: { 200: { description: `The ${kind}`, schema: representation }, ...missing },
    }),
    listVersionsOf: endpoint({
      operationId: op('listVersionsOf'),
      access: { permission: 'governance:read', scope: 'anywhere' },
      method: 'GET',
      path: `${base}/{id}/versions`,
      summary: `Every version of a ${kind}, oldest first`,
      tags,
      params: entityId,
      responses: { 200: { description: 'The versions', schema: z.object({ data: z.array(representation) }) }, ...missing },
    }),
    update: endpoint({
      operationId: op('update'),
      access: { permission: 'policies:edit', scope: 'resource' },
      method: 'PUT',
      path: `${base}/{id}`,
      summary: `Edit a ${kind}: a draft in place (200), any other status as its next version, a draft (201)`,
      tags,
      params: entityId,
      body: input,
      responses: {
        200: { description: 'The draft, edited', schema: representation },
        201: { description: 'The next version, a draft', schema: representation },
        ...missing,
      },
    }),
    delete: endpoint({
      operationId: op('delete'),
      access: { permission: 'policies:edit', scope: 'resource' },
      method: 'DELETE',
      path: `${base}/{id}`,
      summary: `Delete a ${kind} and its versions (only when none is enabled or in grace)`,
      tags,
      params: entityId,
      responses: { 204: { description: 'Deleted' }, 409: { description: 'A version is enabled or in grace' }, ...missing },
    }),
    publish: endpoint({
      operationId: op('publish'),
      access: { permission: 'policies:publish', scope: 'resource' },
      method: 'POST',
      path: `${base}/{id}/publish`,
      summary: `Publish a ${kind}: its newest version becomes enabled, from any status, and is evaluated against every resource (evaluation.enable-on-publish)`,
      tags,
      params: entityId,
      responses: {
        200: {
          description: `The ${kind}, enabled, with the report id of the evaluation it started`,
          schema: kind === 'policy' ? publishedPolicy : publishedMetric,
        },
        ...fourEyes,
        ...missing,
      },
    }),
    changeStatusOf: endpoint({
      operationId: op('changeStatusOf'),
      access: { permission: 'policies:publish', scope: 'resource' },
      method: 'POST',
      path: `${base}/{id}/status`,
      summary: `Move a ${kind} to another status (409 for a move the lifecycle does not allow)`,
      tags,
      params: entityId,
      body: statusMove,
      responses: { 200: { description: `The ${kind}, moved`, schema: representation }, ...fourEyes, 409: { description: 'Illegal move' }, ...missing },
    }),
    test: endpoint({
      operationId: op('test'),
      access: { permission: 'policies:edit', scope: 'resource' },
      method: 'POST',
      path: `${base}/{id}/test`,
      summary: `Dry-run a ${kind} (any status) on a descriptor, or on every resource of an environment; nothing is recorded`,
      tags,
      params: entityId,
      query: versionQuery,
      body: policyTestInput,
      responses: {
        200: { description: 'The finished report (Prefer: wait=N, or when it finished within the default wait)', schema: evaluationReport },
        202: { description: 'Still running: read the report later', schema: reportAccepted },
        ...missing,
      },
    }),
    impact: endpoint({
      operationId: op('impactOf'),
      access: { permission: 'policies:edit', scope: 'resource' },
      method: 'POST',
      path: `${base}/{id}/impact`,
      summary: `What a version of a ${kind} would change: each resource of the perimeter judged by it, compared with the live version's newest result; nothing is recorded`,
      tags,
      params: entityId,
      body: impactInput,
      responses: {
        200: { description: 'The finished impact report (Prefer: wait=N, when it finished in time)', schema: impactReport },
        202: { description: 'Started: read the impact report at the Location header', schema: impactAccepted },
        ...missing,
      },
    }),
    scheduleRollout: endpoint({
      operationId: op('scheduleRolloutOf'),
      access: { permission: 'policies:publish', scope: 'resource' },
      method: 'POST',
      path: `${base}/{id}/rollout`,
      summary: `Schedule the version of a ${kind} in grace to move to enabled at a date (four-eyes: a request)`,
      tags,
      params: entityId,
      body: rolloutInput,
      responses: {
        201: { description: 'Scheduled', schema: rolloutRepresentation },
        ...fourEyes,
        ...missing,
        409: { description: 'No version is in grace, or a rollout is scheduled already' },
      },
    }),
    getRollout: endpoint({
      operationId: op('getRolloutOf'),
      access: { permission: 'governance:read', scope: 'anywhere' },
      method: 'GET',
      path: `${base}/{id}/rollout`,
      summary: `The scheduled rollout of a ${kind}, else its newest (done, cancelled or failed)`,
      tags,
      params: entityId,
      responses: { 200: { description: 'The rollout', schema: rolloutRepresentation }, 404: { description: `No ${kind} has this id, or it has no rollout` } },
    }),
    cancelRollout: endpoint({
      operationId: op('cancelRolloutOf'),
      access: { permission: 'policies:publish', scope: 'resource' },
      method: 'DELETE',
      path: `${base}/{id}/rollout`,
      summary: `Cancel the scheduled rollout of a ${kind}: its version stays in grace`,
      tags,
      params: entityId,
      responses: {
        200: { description: 'Cancelled', schema: rolloutRepresentation },
        404: { description: `No ${kind} has this id, or no rollout is scheduled` },
      },
    }),
  };
}

export const policyEndpoints = entityEndpoints('policy');
export const metricEndpoints = entityEndpoints('metric');

export const recordPassiveResultEndpoint = endpoint({
  operationId: 'recordPassiveResult',
  access: { permission: 'evaluations:run', scope: 'resource' },
  method: 'POST',
  path: '/v1/computational-governance/policies/{id}/results',
  summary: 'Record a result of a passive policy, checked outside this service',
  tags: ['policies'],
  params: entityId,
  body: passiveResultInput,
  responses: {
    201: { description: 'Recorded', schema: evaluationResult },
    404: { description: 'No policy has this id' },
    409: { description: 'The policy is not passive, or has no enabled or grace version' },
  },
});
