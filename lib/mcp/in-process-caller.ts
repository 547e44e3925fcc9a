import { randomUUID } from 'node:crypto';

import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

import { ApiError, problemText } from '#lib/api/api-error';
import type { EndpointCaller } from '#lib/api/endpoint-caller';
import type { Endpoint, EndpointAnswer } from '#lib/http/endpoint';
import { endpointRoute } from '#lib/http/endpoint-route';
import type { HttpHandler } from '#lib/http/handler';

/** The request's own headers a call in process carries: who calls, and which request it is part of. */
const CARRIED = ['authorization', 'x-request-id', 'user-agent'] as const;

/** The request whose caller the calls are made as: its headers, and when its function must have answered. */
export interface CallingRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly deadline: number;
}

/**
 * The API called in process, as the caller of `request` (the MCP endpoint's): each call is an API
 * Gateway event given to the endpoint's own handler, with the request's Authorization header, so it
 * is authenticated, authorized, validated and audited exactly as the same call over HTTP.
 */
export function inProcessCaller(handlers: readonly HttpHandler[], request: CallingRequest): EndpointCaller {
  const byEndpoint = new Map<Endpoint, HttpHandler>(handlers.map((handler) => [handler.endpoint, handler]));
  const carried = Object.fromEntries(CARRIED.flatMap((name) => (request.headers[name] ? [[name, request.headers[name]]] : [])));
  return {
    async call(endpoint, options) {
      const handler = byEndpoint.get(endpoint);
      if (!handler) throw new Error(`${endpoint.operationId} is not served to the MCP endpoint`);
      const path = endpointRoute(endpoint.path, options.params, undefined);
      const query = Object.fromEntries(
        Object.entries((options.query ?? {}) as Record<string, unknown>).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
      );
      const routeKey = `${endpoint.method} ${endpoint.path}`;
      const now = new Date();
      const event: APIGatewayProxyEventV2 = {
        version: '2.0',
        routeKey,
        rawPath: path,
        rawQueryString: new URLSearchParams(query).toString(),
        queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
        pathParameters: options.params as Record<string, string> | undefined,
        headers: { ...carried, accept: 'application/json', ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        isBase64Encoded: false,
        requestContext: {
          accountId: 'in-process',
          apiId: 'mcp',
          domainName: 'in-process',
          domainPrefix: 'in-process',
          http: { method: endpoint.method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: request.headers['user-agent'] ?? 'mcp' },
          requestId: randomUUID(),
          routeKey,
          stage: '$default',
          time: now.toISOString(),
          timeEpoch: now.getTime(),
        },
      };
      const response = await handler(event, contextUntil(request.deadline, endpoint.operationId));
      const status = response.statusCode ?? 200;
      const body: unknown = response.body ? JSON.parse(response.body) : null;
      if (status >= 300) throw new ApiError(status, `${endpoint.method} ${path}: ${problemText(status, body)}`);
      const schema = endpoint.responses[status]?.schema;
      return { status, body: (schema ? schema.parse(body) : body) as EndpointAnswer<typeof endpoint> };
    },
  };
}

/** A Lambda context for a call in process: its time is what is left of the request's. */
function contextUntil(deadline: number, operationId: string): Context {
  return {
    awsRequestId: randomUUID(),
    functionName: operationId,
    functionVersion: '$LATEST',
    invokedFunctionArn: `in-process:${operationId}`,
    memoryLimitInMB: '0',
    logGroupName: 'in-process',
    logStreamName: 'in-process',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
