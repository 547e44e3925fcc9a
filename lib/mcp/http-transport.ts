import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

import type { EndpointCaller } from '#lib/api/endpoint-caller';
import type { HttpRequest, HttpResult } from '#lib/http/endpoint';

import type { postMcpEndpoint } from './endpoints';
import { governanceMcpServer } from './governance-mcp-server';
import type { CallingRequest } from './in-process-caller';

/**
 * How long the operations of one MCP message may take: under the function's timeout (29 s,
 * serverless.yml) less what authenticating the request took, and API Gateway's 30 s.
 */
const MESSAGE_BUDGET_MS = 25_000;
/** The version the server gives of itself: the API's. */
const SERVER_VERSION = '1';
/** What the transport is not told of the request: its credentials stay with the calls its tools make. */
const WITHHELD = new Set(['authorization', 'cookie']);

/**
 * Answers one MCP message (or batch) posted to /mcp: stateless, a server and a transport per
 * request (no session to keep between Lambda invocations), JSON answers instead of a stream. The
 * tools call the API through `callerOf`, as the request's caller.
 */
export async function answerMcp(request: HttpRequest<typeof postMcpEndpoint>, callerOf: (calling: CallingRequest) => EndpointCaller): Promise<HttpResult> {
  const api = callerOf({ headers: request.headers, deadline: Date.now() + MESSAGE_BUDGET_MS });
  const server = governanceMcpServer({ api }, SERVER_VERSION);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const headers = Object.entries(request.headers).flatMap(([name, value]) =>
      value === undefined || WITHHELD.has(name) ? [] : [[name, value] as [string, string]],
    );
    const message = new Request(`http://mcp.invalid${request.path}`, { method: 'POST', headers, body: JSON.stringify(request.body) });
    const answer = await transport.handleRequest(message, { parsedBody: request.body });
    const text = await answer.text();
    return { status: answer.status, text, headers: Object.fromEntries(answer.headers) };
  } finally {
    await server.close();
  }
}
