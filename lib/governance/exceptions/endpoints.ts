import { approvalRequested } from '#lib/authorization/approval';
import { endpoint } from '#lib/http/endpoint';
import { listOf, paginationQuery } from '#lib/http/pagination';

import { exceptionFilters, exceptionId, exceptionInput, governanceException } from './exception';

const PATH = '/v1/computational-governance/exceptions';

export const createExceptionEndpoint = endpoint({
  operationId: 'createException',
  access: { permission: 'exceptions:write', scope: 'resource' },
  method: 'POST',
  path: PATH,
  summary:
    'Waive a policy or metric for a resource (or a glob of resources) until a date: while active, its failing results are `waived` ' +
    'and do not make `passed` false',
  tags: ['exceptions'],
  body: exceptionInput,
  responses: {
    201: { description: 'The exception, at the Location header', schema: governanceException },
    202: { description: 'Four-eyes: nothing is waived yet; the request for approval, at the Location header', schema: approvalRequested },
    400: { description: 'A field is invalid: unknown policyId or metricId, expiresAt in the past or beyond exceptions.max-duration' },
  },
});

export const listExceptionsEndpoint = endpoint({
  operationId: 'listExceptions',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: PATH,
  summary: 'Exceptions, newest first, expired ones included unless active=true',
  tags: ['exceptions'],
  query: paginationQuery.extend(exceptionFilters.shape),
  responses: { 200: { description: 'A page of exceptions', schema: listOf(governanceException, 'GovernanceExceptionList') } },
});

export const getExceptionEndpoint = endpoint({
  operationId: 'getException',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: `${PATH}/{id}`,
  summary: 'An exception',
  tags: ['exceptions'],
  params: exceptionId,
  responses: { 200: { description: 'The exception', schema: governanceException }, 404: { description: 'No exception has this id' } },
});

export const deleteExceptionEndpoint = endpoint({
  operationId: 'deleteException',
  access: { permission: 'exceptions:write', scope: 'resource' },
  method: 'DELETE',
  path: `${PATH}/{id}`,
  summary: 'Withdraw an exception: the next evaluation judges its pairs normally',
  tags: ['exceptions'],
  params: exceptionId,
  responses: { 204: { description: 'Deleted' }, 404: { description: 'No exception has this id' } },
});
