import {
  deleteResourceTypeEndpoint,
  listResourceTypesEndpoint,
  readGovernanceResourceTypeEndpoint,
  readResourceTypeEndpoint,
  registerResourceTypeEndpoint,
} from '../../lib/governance/resource-types/endpoints';
import { deleteResourceType, listResourceTypes, readResourceType, registerResourceType } from '../../lib/governance/resource-types/resource-type-service';
import { httpHandler } from '../../lib/http/handler';

export const register = httpHandler(registerResourceTypeEndpoint, async ({ body, principal }) => {
  const { resourceType, created } = await registerResourceType(body, principal.subject);
  return { status: created ? 201 : 200, body: resourceType };
});

export const list = httpHandler(listResourceTypesEndpoint, async ({ query }) => ({ status: 200, body: await listResourceTypes(query) }));

export const read = httpHandler(readResourceTypeEndpoint, async ({ params }) => ({ status: 200, body: await readResourceType(params.name) }));

export const readGovernance = httpHandler(readGovernanceResourceTypeEndpoint, async ({ params }) => ({
  status: 200,
  body: await readResourceType(params.name),
}));

export const remove = httpHandler(deleteResourceTypeEndpoint, async ({ params }) => {
  await deleteResourceType(params.name);
  return { status: 204 };
});
