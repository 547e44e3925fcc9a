import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { Role } from '#lib/authorization/roles';
import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { governanceApi, publishedCuePolicy, registerResourceType } from '../support/governance-api';
import { callTool, textOf } from '../support/mcp-tools';
import { technicalToken } from '../support/tokens';

// The MCP server at /mcp on the API (issue 47): the MCP SDK's own client over Streamable HTTP,
// against serverless offline. No credentials, no session; each tool is allowed exactly when the
// operation it performs is, for the caller the request's token names.

const baseUrl = inject('baseUrl');
const TYPE = 'mcp-http-dataproduct';
const OTHER_TYPE = 'mcp-http-pipeline';
const BAD = 'id: urn:dp:mcp-http-bad\nowner:\n  email: nobody\n';
const GOOD = { id: 'urn:dp:mcp-http-good', owner: { email: 'alice@example.com' } };

let policy: EntityRepresentation;
const clients: Client[] = [];

const tokenOf = (sub: string, roles: Role[]) => technicalToken({ sub, roles });

/** An MCP session with /mcp, authenticated by `token` (none when undefined). */
async function session(token: string | undefined): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  });
  const client = new Client({ name: 'cgp-e2e-http', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  policy = await publishedCuePolicy(TYPE, 'MCP over HTTP: owners have an e-mail', 'owner: email: =~"@"\n');
  await registerResourceType(OTHER_TYPE);
  // An evaluator of one resource type only.
  await governanceApi('POST', '/role-bindings', { subjects: ['mcp-http-scoped'], roles: ['evaluator'], resourceTypes: [TYPE] });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

describe('the MCP endpoint (/mcp, Streamable HTTP)', () => {
  it('lists the tools with their schemas, and checks a failing and a passing descriptor, as dry runs', async () => {
    const client = await session(await tokenOf('mcp-http-admin', ['admin']));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('check_policies');
    for (const tool of tools) expect([tool.inputSchema.type, tool.outputSchema?.type]).toEqual(['object', 'object']);

    const failing = await callTool(client, 'check_policies', { resourceType: TYPE, environment: 'development', descriptor: BAD });
    expect(failing.isError, textOf(failing)).toBeFalsy();
    expect(failing.structuredContent).toMatchObject({
      passed: false,
      results: [{ policyId: policy.id, outcome: 'error', errors: [{ path: 'owner.email', line: 3 }] }],
    });
    const report = await governanceApi<{ dryRun: boolean; createdBy: string }>('GET', `/evaluation-reports/${failing.structuredContent?.reportId as string}`);
    expect(report).toMatchObject({ dryRun: true, createdBy: 'mcp-http-admin' });

    const passing = await callTool(client, 'check_policies', { resourceType: TYPE, environment: 'development', descriptor: GOOD });
    expect(passing.structuredContent).toMatchObject({ passed: true, results: [{ outcome: 'ok' }] });

    // Files are read only by `cgp mcp`, on the developer's machine: never the server's.
    const file = await callTool(client, 'check_policies', { resourceType: TYPE, environment: 'development', path: '/etc/passwd' });
    expect(file).toMatchObject({ isError: true });
    expect(textOf(file)).toMatch(/does not read files/);
  });

  it('allows each tool exactly when its operation is: a reader may read, not check; an evaluator of one type checks that type only', async () => {
    const reader = await session(await tokenOf('mcp-http-reader', ['reader']));
    const listed = await callTool(reader, 'list_policies', { resourceType: TYPE });
    expect(listed.structuredContent).toMatchObject({ items: [{ id: policy.id }] });
    const check = await callTool(reader, 'check_policies', { resourceType: TYPE, environment: 'development', descriptor: GOOD });
    expect(check).toMatchObject({ isError: true });
    expect(textOf(check)).toMatch(/403/);

    const scoped = await session(await tokenOf('mcp-http-scoped', []));
    const inScope = await callTool(scoped, 'check_policies', { resourceType: TYPE, environment: 'development', descriptor: BAD });
    expect(inScope.structuredContent).toMatchObject({ passed: false });
    const outOfScope = await callTool(scoped, 'check_policies', { resourceType: OTHER_TYPE, environment: 'development', descriptor: GOOD });
    expect(outOfScope).toMatchObject({ isError: true });
    expect(textOf(outOfScope)).toMatch(/403/);
    const asked = await callTool(scoped, 'request_exception', {
      policyId: policy.id,
      resourceId: 'urn:dp:mcp-http-bad',
      reason: 'an evaluator may not waive',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(asked).toMatchObject({ isError: true });
    expect(textOf(asked)).toMatch(/403/);
  });

  it('refuses a session without a token (401), and serves no stream and no session to end (405)', async () => {
    await expect(session(undefined)).rejects.toThrow(/401/);
    const headers = { authorization: `Bearer ${await tokenOf('mcp-http-reader', ['reader'])}` };
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${baseUrl}/mcp`, { method, headers: { ...headers, accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
