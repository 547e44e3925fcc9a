import {
  deleteResourceTypeEndpoint,
  getGovernanceResourceTypeEndpoint,
  getResourceTypeEndpoint,
  listResourceTypesEndpoint,
  registerResourceTypeEndpoint,
} from '#lib/governance/resource-types/endpoints';
import * as resourceTypes from '#lib/governance/resource-types/resource-type-service';
import { httpHandler } from '#lib/http/handler';

export const registerResourceType = httpHandler(registerResourceTypeEndpoint, async ({ body, principal, authorize }) => {
  authorize({ resourceType: body.name });
  const { resourceType, created } = await resourceTypes.registerResourceType(body, principal.subject);
  return { status: created ? 201 : 200, body: resourceType };
});

export const listResourceTypes = httpHandler(listResourceTypesEndpoint, async ({ query }) => ({
  status: 200,
  body: await resourceTypes.listResourceTypes(query),
}));

export const getResourceType = httpHandler(getResourceTypeEndpoint, async ({ params }) => ({
  status: 200,
  body: await resourceTypes.getResourceType(params.name),
}));

export const getGovernanceResourceType = httpHandler(getGovernanceResourceTypeEndpoint, async ({ params }) => ({
  status: 200,
  body: await resourceTypes.getResourceType(params.name),
}));

export const deleteResourceType = httpHandler(deleteResourceTypeEndpoint, async ({ params, authorize }) => {
  authorize({ resourceType: params.name });
  await resourceTypes.deleteResourceType(params.name);
  return { status: 204 };
});
