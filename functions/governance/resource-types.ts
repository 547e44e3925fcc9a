import { governanceHandler } from '#lib/governance/governance-handler';
import {
  deleteResourceTypeEndpoint,
  getGovernanceResourceTypeEndpoint,
  getResourceTypeEndpoint,
  listResourceTypesEndpoint,
  registerResourceTypeEndpoint,
} from '#lib/governance/resource-types/endpoints';
import * as resourceTypes from '#lib/governance/resource-types/resource-type-service';

export const registerResourceType = governanceHandler(registerResourceTypeEndpoint, async ({ body, principal, authorize }, ctx) => {
  authorize({ resourceType: body.name });
  const { resourceType, created } = await resourceTypes.registerResourceType(ctx, body, principal.subject);
  return { status: created ? 201 : 200, body: resourceType };
});

export const listResourceTypes = governanceHandler(listResourceTypesEndpoint, async ({ query }, ctx) => ({
  status: 200,
  body: await resourceTypes.listResourceTypes(ctx, query),
}));

export const getResourceType = governanceHandler(getResourceTypeEndpoint, async ({ params }, ctx) => ({
  status: 200,
  body: await resourceTypes.getResourceType(ctx, params.name),
}));

export const getGovernanceResourceType = governanceHandler(getGovernanceResourceTypeEndpoint, async ({ params }, ctx) => ({
  status: 200,
  body: await resourceTypes.getResourceType(ctx, params.name),
}));

export const deleteResourceType = governanceHandler(deleteResourceTypeEndpoint, async ({ params, authorize }, ctx) => {
  authorize({ resourceType: params.name });
  await resourceTypes.deleteResourceType(ctx, params.name);
  return { status: 204 };
});
