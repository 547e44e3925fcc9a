import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** An API Gateway v2 event (payload 2.0), as the HTTP API sends one to a function; JSON body, Prefer: wait for Evaluate. */
export function benchApiEvent(method: string, path: string, authorization: string, body?: unknown, params?: Record<string, string>): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization, 'content-type': 'application/json', prefer: 'wait=25' },
    pathParameters: params,
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: 'bench',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}
