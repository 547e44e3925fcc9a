import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { problemOfDomainError } from '../domain-problems';
import { problemResponse } from '../problem-response';
import { HttpProblem } from '../problems';
import { type RequestContextInternal, requestLogOf } from './request-context';

/**
 * The one place errors become answers: an HttpProblem, or a domain error through its problem
 * (lib/http/domain-problems.ts), becomes its problem document; anything else is logged with the
 * request id and answered 500 with no internals.
 */
export function problemErrors(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal> {
  return {
    onError: (request) => {
      const { error } = request;
      const { requestId } = request.internal;
      const log = requestLogOf(request.event);
      const problem = error instanceof HttpProblem ? error : problemOfDomainError(error);
      if (problem) {
        if (problem.status >= 500) log.warn({ status: problem.status, detail: problem.message }, 'request failed upstream');
        request.response = problemResponse(problem, requestId);
        return;
      }
      log.error({ err: error }, 'unexpected error');
      request.response = problemResponse(
        new HttpProblem(500, 'Internal Server Error', `An unexpected error occurred. Quote request id ${requestId} when reporting it.`),
        requestId,
      );
    },
  };
}
