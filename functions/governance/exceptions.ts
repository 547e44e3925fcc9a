import { createExceptionEndpoint, deleteExceptionEndpoint, listExceptionsEndpoint, readExceptionEndpoint } from '../../lib/governance/exceptions/endpoints';
import { createException, deleteException, listExceptions, readException } from '../../lib/governance/exceptions/exception-service';
import { httpHandler } from '../../lib/http/handler';

export const create = httpHandler(createExceptionEndpoint, async ({ body, principal }) => {
  const exception = await createException(body, principal.subject);
  return { status: 201, body: exception, headers: { location: `/v1/computational-governance/exceptions/${exception.id}` } };
});

export const list = httpHandler(listExceptionsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await listExceptions(filters, { limit, offset }) };
});

export const read = httpHandler(readExceptionEndpoint, async ({ params }) => ({ status: 200, body: await readException(params.id) }));

export const remove = httpHandler(deleteExceptionEndpoint, async ({ params }) => {
  await deleteException(params.id);
  return { status: 204 };
});
