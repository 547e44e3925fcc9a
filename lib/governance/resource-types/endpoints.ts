import { SENT_FOR_APPROVAL } from '#lib/authorization/approval';
import { endpoint } from '#lib/http/endpoint';
import { listOf, paginationQuery } from '#lib/http/pagination';

import { resourceTypeInput, resourceTypeName, resourceTypeRepresentation } from './resource-type';

const BASE = '/v1/computational-governance/resource-types';

export const registerResourceTypeEndpoint = endpoint({
  operationId: 'registerResourceType',
  access: { permission: 'resource-types:manage', scope: 'resource' },
  method: 'POST',
  path: BASE,
  summary: 'Register a resource type, replacing one of the same name',
  tags: ['resource types'],
  body: resourceTypeInput,
  responses: {
    200: { description: 'Replaced', schema: resourceTypeRepresentation },
    201: { description: 'Registered', schema: resourceTypeRepresentation },
    202: SENT_FOR_APPROVAL,
  },
});

export const listResourceTypesEndpoint = endpoint({
  operationId: 'listResourceTypes',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: BASE,
  summary: 'Registered resource types, by name',
  tags: ['resource types'],
  query: paginationQuery,
  responses: { 200: { description: 'A page of resource types', schema: listOf(resourceTypeRepresentation, 'ResourceTypeList') } },
});

const read = (operationId: string, path: string) =>
  endpoint({
    operationId,
    access: { permission: 'governance:read', scope: 'anywhere' },
    method: 'GET',
    path,
    summary: 'A resource type, with its descriptorConfiguration',
    tags: ['resource types'],
    params: resourceTypeName,
    responses: {
      200: { description: 'The resource type', schema: resourceTypeRepresentation },
      404: { description: 'No resource type has this name' },
    },
  });

/** The path the product document names. */
export const getResourceTypeEndpoint = read('getResourceType', '/v1/resource-types/{name}');
export const getGovernanceResourceTypeEndpoint = read('getGovernanceResourceType', `${BASE}/{name}`);

export const deleteResourceTypeEndpoint = endpoint({
  operationId: 'deleteResourceType',
  access: { permission: 'resource-types:manage', scope: 'resource' },
  method: 'DELETE',
  path: `${BASE}/{name}`,
  summary: 'Remove a resource type',
  tags: ['resource types'],
  params: resourceTypeName,
  responses: {
    204: { description: 'Removed' },
    202: SENT_FOR_APPROVAL,
    404: { description: 'No resource type has this name' },
  },
});
