import { rm } from 'node:fs/promises';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { Role } from '#lib/authorization/roles';
import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { folderWith } from '../support/cgp';
import { governanceApi, publishedCuePolicy } from '../support/governance-api';
import { callTool, textOf } from '../support/mcp-tools';
import { technicalToken } from '../support/tokens';

// `cgp mcp` as a coding agent runs it (issue 47): the MCP SDK's own client over stdio, against
// serverless offline. Every tool works through the API as the token's caller.

const baseUrl = inject('baseUrl');
const TYPE = 'mcp-dataproduct';
const GOOD = 'id: urn:dp:mcp-good\nname: Good\nowner:\n  email: alice@example.com\n';
const BAD = 'id: urn:dp:mcp-bad\nname: Bad\nowner:\n  email: nobody\n';

let cwd: string;
let policy: EntityRepresentation;
const clients: Client[] = [];

/** An MCP session with `cgp mcp`, as `roles` (no token at all when null), started in `cwd`. */
async function session(roles: Role[] | null): Promise<Client> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CGP_SERVER: baseUrl };
  if (roles) env.CGP_TOKEN = await technicalToken({ sub: `mcp-${roles.join('-') || 'none'}`, roles });
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.resolve('bin/cgp.mjs'), 'mcp'], env, cwd, stderr: 'pipe' });
  const client = new Client({ name: 'cgp-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  policy = await publishedCuePolicy(TYPE, 'MCP owners have an e-mail', 'owner: email: =~"@"\n');
  cwd = folderWith({ 'good.yaml': GOOD });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await rm(cwd, { recursive: true, force: true });
});

describe('cgp mcp (stdio)', () => {
  it('lists its tools, each with an input and an output schema', async () => {
    const client = await session(['reader', 'evaluator']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_policies',
      'get_policy',
      'get_descriptor_specification',
      'check_policies',
      'explain_result',
      'propose_fix',
      'check_impact',
      'list_failing_resources',
      'request_exception',
      'get_approval_status',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description).toBeTruthy();
    }
    expect(tools.find((tool) => tool.name === 'check_policies')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((tool) => tool.name === 'request_exception')?.annotations).toMatchObject({ readOnlyHint: false });
  });

  it('checks a failing descriptor (errors at its paths) and a passing file, as dry runs that never become the resource’s state', async () => {
    const client = await session(['admin']);
    const failing = await callTool(client, 'check_policies', { resourceType: TYPE, environment: 'development', descriptor: BAD });
    expect(failing.isError, textOf(failing)).toBeFalsy();
    expect(failing.structuredContent).toMatchObject({
      passed: false,
      outcome: 'error',
      results: [
        {
          policyId: policy.id,
          policyName: 'MCP owners have an e-mail',
          outcome: 'error',
          errors: [{ path: 'owner.email', line: 4, column: 3, message: expect.stringMatching(/^owner\.email: invalid value "nobody"/) }],
        },
      ],
    });
    // The same as text, for clients that read no structured content.
    expect(JSON.parse(textOf(failing))).toEqual(failing.structuredContent);
    const report = await governanceApi<{ dryRun: boolean; createdBy: string }>('GET', `/evaluation-reports/${failing.structuredContent?.reportId as string}`);
    // An admin may speak for the resource: only dryRun keeps the check off its state.
    expect(report).toMatchObject({ dryRun: true, createdBy: 'mcp-admin' });

    const passing = await callTool(client, 'check_policies', { resourceType: TYPE, environment: 'development', path: 'good.yaml' });
    expect(passing.structuredContent).toMatchObject({ passed: true, outcome: 'ok', results: [{ outcome: 'ok', errors: [] }] });

    const neither = await callTool(client, 'check_policies', { resourceType: TYPE, environment: 'development' });
    expect(neither).toMatchObject({ isError: true });
    expect(textOf(neither)).toMatch(/give either descriptor or path/);
  });

  it('reads the policies: listed with the filters of the list endpoint, one with its script and versions, and as a resource', async () => {
    const client = await session(['reader']);
    const listed = await callTool(client, 'list_policies', { resourceType: TYPE, kind: 'policy' });
    expect(listed.structuredContent).toMatchObject({ total: 1, items: [{ id: policy.id, kind: 'policy', status: 'enabled', environment: 'development' }] });
    const read = await callTool(client, 'get_policy', { id: policy.id });
    expect(read.structuredContent).toMatchObject({ id: policy.id, cueScript: 'owner: email: =~"@"\n', versions: [{ version: 1, status: 'enabled' }] });
    const resource = await client.readResource({ uri: `cgp://policies/${policy.id}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(read.structuredContent);
  });

  it('allows each tool exactly when its operation is: a reader may not evaluate or ask for an exception; no token, nothing', async () => {
    const reader = await session(['reader']);
    const check = await callTool(reader, 'check_policies', { resourceType: TYPE, environment: 'development', descriptor: GOOD });
    expect(check).toMatchObject({ isError: true });
    expect(textOf(check)).toMatch(/403/);
    const asked = await callTool(reader, 'request_exception', {
      policyId: policy.id,
      resourceId: 'urn:dp:mcp-bad',
      reason: 'migrating owners',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(asked).toMatchObject({ isError: true });
    expect(textOf(asked)).toMatch(/403/);

    const nobody = await session(null);
    const listed = await callTool(nobody, 'list_policies', {});
    expect(listed).toMatchObject({ isError: true });
    expect(textOf(listed)).toMatch(/401/);
  });

  it('asks for an exception and reads a request’s status', async () => {
    const client = await session(['admin']);
    const asked = await callTool(client, 'request_exception', {
      policyId: policy.id,
      resourceId: 'urn:dp:mcp-bad',
      environment: 'development',
      reason: 'migrating owners',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    // Four-eyes is off on this stack: the exception is active at once (tests/e2e/four-eyes.test.ts runs with it on).
    expect(asked.structuredContent).toMatchObject({ state: 'active', exceptionId: expect.any(String) });
    const waived = await callTool(client, 'check_policies', { resourceType: TYPE, environment: 'development', descriptor: BAD });
    expect(waived.structuredContent).toMatchObject({ passed: true, results: [{ outcome: 'waived' }] });

    const unknown = await callTool(client, 'get_approval_status', { id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown).toMatchObject({ isError: true });
    expect(textOf(unknown)).toMatch(/404/);
  });
});
