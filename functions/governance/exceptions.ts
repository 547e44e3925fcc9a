import * as approvals from '#lib/governance/approvals/approval-service';
import { createExceptionEndpoint, deleteExceptionEndpoint, getExceptionEndpoint, listExceptionsEndpoint } from '#lib/governance/exceptions/endpoints';
import * as exceptions from '#lib/governance/exceptions/exception-service';
import { governanceHandler } from '#lib/governance/governance-handler';

export const createException = governanceHandler(createExceptionEndpoint, async ({ body, principal, authorize }, ctx) => {
  // Over every resource type the policy is enforced on: an exception waives it as enforced.
  const scopes = await exceptions.scopesOfNewException(ctx, body);
  for (const scope of scopes) authorize(scope);
  const { broad, matchedResources } = await exceptions.reachOfNewException(ctx, body);
  if (broad) for (const scope of scopes) principal.access.require('exceptions:waive-all', 'resource', scope);
  if (await approvals.fourEyesOn(ctx)) return approvals.requestedAnswer(await approvals.requestException(ctx, body, principal.subject, matchedResources));
  const exception = await exceptions.createException(ctx, body, principal.subject);
  return { status: 201, body: exception, headers: { location: `/v1/computational-governance/exceptions/${exception.id}` } };
});

export const listExceptions = governanceHandler(listExceptionsEndpoint, async ({ query }, ctx) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await exceptions.listExceptions(ctx, filters, { limit, offset }) };
});

export const getException = governanceHandler(getExceptionEndpoint, async ({ params }, ctx) => ({
  status: 200,
  body: await exceptions.getException(ctx, params.id),
}));

export const deleteException = governanceHandler(deleteExceptionEndpoint, async ({ params, authorize }, ctx) => {
  for (const scope of await exceptions.scopesOfException(ctx, params.id)) authorize(scope);
  await exceptions.deleteException(ctx, params.id);
  return { status: 204 };
});
