import { z } from 'zod';

import { endpoint } from '#lib/http/endpoint';

const PATH = '/mcp';
const tags = ['mcp'];

/** A JSON-RPC message of the Model Context Protocol, or a batch of them. */
const jsonRpc = z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))], {
  error: 'the body must be a JSON-RPC message (an object) or a batch of them (an array)',
});

export const postMcpEndpoint = endpoint({
  operationId: 'postMcp',
  access: 'authenticated',
  method: 'POST',
  path: PATH,
  summary:
    'The MCP server for coding agents (Streamable HTTP, stateless: no session; JSON answers). Each tool is allowed exactly when the operation it performs is: docs/mcp.md',
  tags,
  body: jsonRpc,
  responses: {
    200: { description: 'The JSON-RPC answer', schema: z.unknown() },
    202: { description: 'A notification or an answer, accepted' },
  },
});

const notServed = (method: 'GET' | 'DELETE', summary: string) =>
  endpoint({
    operationId: method === 'GET' ? 'getMcp' : 'deleteMcp',
    access: 'authenticated',
    method,
    path: PATH,
    summary,
    tags,
    responses: { 405: { description: 'Not served: only POST is (Allow: POST)' } },
  });

/** A stateless server opens no stream of its own and keeps no session to end: 405, as the protocol asks. */
export const getMcpEndpoint = notServed('GET', 'No server-sent stream: the server is stateless (405, Allow: POST)');
export const deleteMcpEndpoint = notServed('DELETE', 'No session to end: the server is stateless (405, Allow: POST)');
