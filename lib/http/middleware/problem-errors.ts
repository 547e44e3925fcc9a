import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { problemResponse } from '../problem-response';
import { HttpProblem } from '../problems';
import type { RequestContextInternal } from './request-context';

/**
 * The one place errors become answers: an HttpProblem becomes its problem document; anything else
 * is logged with the request id and answered 500 with no internals.
 */
export function problemErrors(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal> {
  return {
    onError: (request) => {
      const { error } = request;
      const { requestId, log } = request.internal;
      if (error instanceof HttpProblem) {
        if (error.status >= 500) log.warn({ status: error.status, detail: error.message }, 'request failed upstream');
        request.response = problemResponse(error, requestId);
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
