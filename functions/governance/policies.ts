import { recordPassiveResult } from '../../lib/governance/evaluation/evaluation-service';
import { passiveResultEndpoint, policyEndpoints } from '../../lib/governance/policies/endpoints';
import { httpHandler } from '../../lib/http/handler';
import { entityHandlers } from './entity-handlers';

export const { create, list, read, versions, update, remove, publish, move, test } = entityHandlers('policy', policyEndpoints);

export const recordResult = httpHandler(passiveResultEndpoint, async ({ params, body }) => ({ status: 201, body: await recordPassiveResult(params.id, body) }));
