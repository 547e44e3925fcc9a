import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** An API Gateway HTTP API (payload v2) event, as Lambda receives it. */
export function apiGatewayEvent(options: {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  query?: Record<string, string>;
  params?: Record<string, string>;
}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${options.method} ${options.path}`,
    rawPath: options.path,
    rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
    headers: options.headers ?? {},
    queryStringParameters: options.query,
    pathParameters: options.params,
    body: options.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: options.method, path: options.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'api-gateway-request-id',
      routeKey: `${options.method} ${options.path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}

export function lambdaContext(requestId = 'lambda-invocation-id'): Context {
  return {
    awsRequestId: requestId,
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:test',
    memoryLimitInMB: '128',
    logGroupName: 'test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
