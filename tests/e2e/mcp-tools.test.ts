import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { FakeServer } from '../fakes/fake-server';
import { governanceApi } from '../support/governance-api';
import { callTool as callSessionTool, textOf } from '../support/mcp-tools';
import { authorized, technicalToken } from '../support/tokens';

// The MCP server's reading tools at /mcp (issue 47), against serverless offline: stored verdicts
// (a publish evaluates the perimeter through the queue), explained; what a descriptor must satisfy;
// the impact of a version; failing resources by owner; the prompt.

const baseUrl = inject('baseUrl');
const TYPE = 'mcp-tools-dataproduct';
/** Four resources in development: dp-1 and dp-3 of team-a, dp-2 and dp-4 of team-b; dp-3 and dp-4 have no e-mail. */
const resolver = new FakeServer((request) => {
  const all = [1, 2, 3, 4].map((n) => ({
    id: `urn:dp:mcp-tools-${n}`,
    content: `id: urn:dp:mcp-tools-${n}\nteam: team-${n % 2 ? 'a' : 'b'}\nowner:\n  email: ${n <= 2 ? `dp${n}@example.com` : 'nobody'}\n`,
  }));
  const offset = Number(request.query.offset);
  const resources = request.query.environment === 'development' ? all : [];
  return {
    status: 200,
    body: { resources: resources.slice(offset, offset + Number(request.query.limit)), page: { offset, limit: Number(request.query.limit) } },
  };
});

let policy: EntityRepresentation;
let client: Client;

const callTool = (name: string, args: Record<string, unknown>) => callSessionTool(client, name, args);

/** Waits for the newest verdicts of the publish (run by the worker in the background). */
async function verdictsStored(count: number) {
  for (let poll = 0; poll < 240; poll++) {
    const page = await governanceApi<{ data: unknown[] }>('GET', `/results?latest=true&resourceType=${TYPE}`);
    if (page.data.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the publish stored no verdicts');
}

beforeAll(async () => {
  await resolver.start();
  await governanceApi('POST', '/resource-types', {
    name: TYPE,
    configuration: { resourceName: 'id', resourceOwnerField: 'team' },
    resolverConfiguration: { url: resolver.url, path: '/resources' },
  });
  policy = await governanceApi<EntityRepresentation>('POST', '/policies', {
    name: 'MCP tools: owners have an e-mail',
    resourceType: TYPE,
    environment: 'development',
    engine: 'cue',
    cueScript: '#Owner: {email!: =~"@"}\nowner: #Owner\nteam?: string\n',
  });
  await governanceApi('POST', `/policies/${policy.id}/publish`);
  await verdictsStored(4);
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${await technicalToken({ sub: 'mcp-tools-admin', roles: ['admin'] })}` } },
  });
  client = new Client({ name: 'cgp-e2e-tools', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await resolver.stop();
});

describe('the MCP reading tools', () => {
  it('get_descriptor_specification: the policies in force, their CUE, and the fields they declare (through definitions)', async () => {
    const answer = await callTool('get_descriptor_specification', { resourceType: TYPE, environment: 'development' });
    expect(answer.isError, textOf(answer)).toBeFalsy();
    expect(answer.structuredContent).toEqual({
      policies: [
        expect.objectContaining({
          id: policy.id,
          kind: 'policy',
          status: 'enabled',
          cueScript: policy.cueScript,
          fields: [
            { path: 'owner', constraint: 'regular' },
            { path: 'owner.email', constraint: 'required' },
            { path: 'team', constraint: 'optional' },
          ],
        }),
      ],
      fields: [
        { path: 'owner', constraint: 'regular', policies: [policy.id] },
        { path: 'owner.email', constraint: 'required', policies: [policy.id] },
        { path: 'team', constraint: 'optional', policies: [policy.id] },
      ],
    });
    const elsewhere = await callTool('get_descriptor_specification', { resourceType: TYPE, environment: 'production' });
    expect(elsewhere.structuredContent).toEqual({ policies: [], fields: [] });
  });

  it('list_failing_resources by owner, and explain_result: the errors, the CUE lines they point at, the exception that waives it', async () => {
    const failing = await callTool('list_failing_resources', { resourceType: TYPE });
    expect((failing.structuredContent?.items as Array<{ resourceId: string }>).map((item) => item.resourceId).sort()).toEqual([
      'urn:dp:mcp-tools-3',
      'urn:dp:mcp-tools-4',
    ]);
    const ofTeamA = await callTool('list_failing_resources', { resourceType: TYPE, owner: 'team-a' });
    expect(ofTeamA.structuredContent).toMatchObject({ total: 1, items: [{ resourceId: 'urn:dp:mcp-tools-3', outcome: 'error', policyId: policy.id }] });
    // The history too (not only the newest verdicts) is filtered by owner.
    const history = await governanceApi<{ data: Array<{ resource: { id: string } }> }>('GET', `/results?resourceType=${TYPE}&owner=team-b`);
    expect(history.data.map((result) => result.resource.id).sort()).toEqual(['urn:dp:mcp-tools-2', 'urn:dp:mcp-tools-4']);

    const explained = await callTool('explain_result', { policyId: policy.id, resourceId: 'urn:dp:mcp-tools-3' });
    expect(explained.isError, textOf(explained)).toBeFalsy();
    expect(explained.structuredContent).toMatchObject({
      policy: { id: policy.id, cueScript: policy.cueScript },
      results: [
        {
          environment: 'development',
          outcome: 'error',
          errors: [expect.stringMatching(/^owner\.email: invalid value "nobody"/)],
          cueLines: [{ line: 1, text: '#Owner: {email!: =~"@"}' }],
          waivedBy: null,
        },
      ],
    });

    const waiver = await governanceApi<{ id: string }>('POST', '/exceptions', {
      policyId: policy.id,
      resourceId: 'urn:dp:mcp-tools-*',
      environment: 'development',
      reason: 'owners are being migrated',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const waived = await callTool('explain_result', { policyId: policy.id, resourceId: 'urn:dp:mcp-tools-4', environment: 'development' });
    expect(waived.structuredContent).toMatchObject({ results: [{ waivedBy: { exceptionId: waiver.id, reason: 'owners are being migrated' } }] });
    const removed = await fetch(`${baseUrl}/v1/computational-governance/exceptions/${waiver.id}`, { method: 'DELETE', headers: await authorized() });
    expect(removed.status).toBe(204);

    const none = await callTool('explain_result', { policyId: policy.id, resourceId: 'urn:dp:unknown' });
    expect(none).toMatchObject({ isError: true });
    expect(textOf(none)).toMatch(/no result of .* for urn:dp:unknown is stored/);
  });

  it('check_impact: what a stricter draft would newly fail, in all, by environment and by owner', async () => {
    await governanceApi('PUT', `/policies/${policy.id}`, {
      name: policy.name,
      resourceType: TYPE,
      environment: 'development',
      engine: 'cue',
      cueScript: 'owner: email!: =~"@example\\\\.com$"\nteam!: "team-a"\n',
    });
    const answer = await callTool('check_impact', { policyId: policy.id });
    expect(answer.isError, textOf(answer)).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({
      status: 'completed',
      candidateVersion: 2,
      baselineVersion: 1,
      counts: { newlyFailing: 1, stillFailing: 2, stillPassing: 1, newlyPassing: 0 },
      byOwner: expect.arrayContaining([expect.objectContaining({ owner: 'team-b', newlyFailing: 1 })]),
    });
    // The draft is not in force: the specification still gives version 1.
    const specification = await callTool('get_descriptor_specification', { resourceType: TYPE, environment: 'development' });
    expect(specification.structuredContent).toMatchObject({ policies: [{ id: policy.id, version: 1, status: 'enabled', cueScript: policy.cueScript }] });
  });

  it('offers the prompt "make this descriptor compliant", naming the tools to use', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['make_compliant']);
    const prompt = await client.getPrompt({ name: 'make_compliant', arguments: { resourceType: TYPE, environment: 'development', descriptor: 'id: x\n' } });
    const text = (prompt.messages[0].content as { text: string }).text;
    for (const tool of ['check_policies', 'get_policy', 'propose_fix', 'request_exception']) expect(text).toContain(tool);
    expect(text).toContain('id: x');
  });
});
