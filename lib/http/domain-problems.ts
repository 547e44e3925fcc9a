import { ConflictError, ForbiddenError, InvalidInput, NotFoundError, Unavailable, UnprocessableInput, UpstreamError } from '#lib/errors/domain-errors';

import { Conflict, Forbidden, type HttpProblem, Invalid, NotFound, ServiceUnavailable, Unprocessable, UpstreamFailure } from './problems';

/**
 * The problem that answers a domain error: the one place the domain's errors get HTTP statuses.
 * Undefined for an error that is not the domain's (the caller answers 500).
 */
export function problemOfDomainError(error: unknown): HttpProblem | undefined {
  if (error instanceof NotFoundError) return new NotFound(error.message);
  if (error instanceof ForbiddenError) return new Forbidden(error.message, error.members);
  if (error instanceof ConflictError) return new Conflict(error.message, error.members);
  if (error instanceof InvalidInput) return new Invalid(error.errors, error.message);
  if (error instanceof UnprocessableInput) return new Unprocessable(error.message, error.members);
  if (error instanceof Unavailable) return new ServiceUnavailable(error.message, error.members);
  if (error instanceof UpstreamError) return new UpstreamFailure(error.message, error.options);
  return undefined;
}
