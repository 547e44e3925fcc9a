import * as approvals from '#lib/governance/approvals/approval-service';
import { createExceptionEndpoint, deleteExceptionEndpoint, getExceptionEndpoint, listExceptionsEndpoint } from '#lib/governance/exceptions/endpoints';
import * as exceptions from '#lib/governance/exceptions/exception-service';
import { waivesEveryResource } from '#lib/governance/exceptions/resource-glob';
import { httpHandler } from '#lib/http/handler';

export const createException = httpHandler(createExceptionEndpoint, async ({ body, principal, authorize }) => {
  const scope = await exceptions.scopeOfNewException(body);
  authorize(scope);
  if (waivesEveryResource(body.resourceId)) principal.access.require('exceptions:waive-all', 'resource', scope);
  if (await approvals.fourEyesOn()) return approvals.requestedAnswer(await approvals.requestException(body, principal.subject));
  const exception = await exceptions.createException(body, principal.subject);
  return { status: 201, body: exception, headers: { location: `/v1/computational-governance/exceptions/${exception.id}` } };
});

export const listExceptions = httpHandler(listExceptionsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await exceptions.listExceptions(filters, { limit, offset }) };
});

export const getException = httpHandler(getExceptionEndpoint, async ({ params }) => ({ status: 200, body: await exceptions.getException(params.id) }));

export const deleteException = httpHandler(deleteExceptionEndpoint, async ({ params, authorize }) => {
  authorize(await exceptions.scopeOfException(params.id));
  await exceptions.deleteException(params.id);
  return { status: 204 };
});
