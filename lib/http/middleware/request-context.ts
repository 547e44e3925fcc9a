import { randomUUID } from 'node:crypto';

import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { type Logger, logger } from '#lib/logging/logger';

export const REQUEST_ID_HEADER = 'x-request-id';
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestContextInternal extends Record<string, unknown> {
  requestId: string;
  startedAt: number;
}

/** The logger of each request in flight (the event is the request's identity), made when first asked for. */
const requestLogs = new WeakMap<APIGatewayProxyEventV2, Logger>();

/**
 * The request's logger, which carries its id; the process's logger outside a request. Made on
 * demand: a child logger costs its bindings' redaction, which most requests never log.
 */
export function requestLogOf(event: APIGatewayProxyEventV2): Logger {
  const requestId = event.headers?.[REQUEST_ID_HEADER];
  if (!requestId) return logger;
  let log = requestLogs.get(event);
  if (!log) {
    log = logger.child({ requestId });
    requestLogs.set(event, log);
  }
  return log;
}

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal>;

/** The id of a request: the caller's x-request-id when sane, else the Lambda invocation's, else a new one. */
function requestIdOf(event: APIGatewayProxyEventV2, context: Context): string {
  const fromClient = event.headers?.[REQUEST_ID_HEADER];
  if (fromClient && CLIENT_REQUEST_ID.test(fromClient)) return fromClient;
  return context?.awsRequestId || randomUUID();
}

/** Gives every request an id (echoed in x-request-id) and a logger, and logs one line per request. */
export function requestContext(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal> {
  const finish = (request: Request) => {
    const { requestId, startedAt } = request.internal;
    if (request.response) request.response.headers = { ...request.response.headers, [REQUEST_ID_HEADER]: requestId };
    if (!logger.isLevelEnabled('info')) return;
    requestLogOf(request.event).info(
      {
        method: request.event.requestContext?.http?.method,
        path: request.event.rawPath,
        status: request.response?.statusCode,
        durationMs: Date.now() - startedAt,
      },
      'request handled',
    );
  };
  return {
    before: (request) => {
      const requestId = requestIdOf(request.event, request.context);
      request.internal.requestId = requestId;
      // Handlers read the id from the headers, where the caller would have put it.
      request.event.headers = { ...request.event.headers, [REQUEST_ID_HEADER]: requestId };
      request.internal.startedAt = Date.now();
    },
    after: finish,
    onError: finish,
  };
}
