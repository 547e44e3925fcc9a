import type { LambdaHttpHandler } from '#lib/http/handler';

import { apiGatewayEvent, lambdaContext } from './api-gateway-event';
import { authorized } from './tokens';

/** JSON, or NDJSON as the array of its lines. */
const parseBody = (text: string, contentType: string) =>
  contentType.startsWith('application/x-ndjson')
    ? text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line))
    : JSON.parse(text);

/**
 * Calls a Lambda HTTP handler in-process with an API Gateway v2 event, authenticated with a
 * technical JWT of the test settings unless `headers.authorization` says otherwise; the answer's
 * body is parsed JSON (NDJSON: the array of its lines), or its bytes when it is binary (base64-encoded).
 */
export async function invoke(
  handler: LambdaHttpHandler,
  request: { method: string; path: string; body?: unknown; query?: Record<string, string>; params?: Record<string, string>; headers?: Record<string, string> },
  /** The Lambda's time left when the call starts (30 s unless said). */
  remainingMs = 30_000,
) {
  const response = await handler(
    apiGatewayEvent({
      method: request.method,
      path: request.path,
      query: request.query,
      params: request.params,
      headers: await authorized({ ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers }),
      body: request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body),
    }),
    { ...lambdaContext(), getRemainingTimeInMillis: () => remainingMs },
  );
  const headers = response.headers ?? {};
  if (response.isBase64Encoded) return { status: response.statusCode, headers, body: Buffer.from(response.body ?? '', 'base64') };
  return { status: response.statusCode, headers, body: response.body ? parseBody(response.body, String(headers['content-type'] ?? '')) : undefined };
}
