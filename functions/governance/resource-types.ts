import { fourEyesOn, requestedAnswer } from '#lib/governance/approvals/approval-service';
import { requestResourceTypeChange } from '#lib/governance/approvals/settings-requests';
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
  // Under four-eyes re-pointing a type's resolver (where its resources are listed) is a request (docs/authorization.md).
  if (fourEyesOn(ctx)) return requestedAnswer(await requestResourceTypeChange(ctx, { action: 'register', resourceType: body }, principal.subject));
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

export const deleteResourceType = governanceHandler(deleteResourceTypeEndpoint, async ({ params, authorize, principal }, ctx) => {
  authorize({ resourceType: params.name });
  if (fourEyesOn(ctx)) return requestedAnswer(await requestResourceTypeChange(ctx, { action: 'delete', name: params.name }, principal.subject));
  await resourceTypes.deleteResourceType(ctx, params.name);
  return { status: 204 };
});
