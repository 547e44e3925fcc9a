import { randomBytes } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Role } from '#lib/authorization/roles';
import type { HttpHandler } from '#lib/http/handler';
import { governanceMcpServer } from '#lib/mcp/governance-mcp-server';
import { inProcessCaller } from '#lib/mcp/in-process-caller';

import type * as evaluationModule from '../../functions/governance/evaluation';
import { FakeHostedModel } from '../fakes/hosted-model';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { textOf, type ToolAnswer } from '../support/mcp-tools';
import { technicalToken } from '../support/tokens';

// The MCP server's propose_fix (issue 47) against the fake LLM: the SDK's own client, in memory, on
// the server the /mcp endpoint serves, its operations run in process by their handlers. Only a
// proposal the engine passes comes back.

const SCHEMA = 'it_mcp_propose_fix';
const API = '/v1/computational-governance';
const OVERRIDES = `computational-governance-platform {
  assistant { encryption-key = "${randomBytes(32).toString('base64')}", provider-retries = 0 }
  resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]
}`;
/** A descriptor the two policies below refuse: its owner has no e-mail, its retention is too long. */
const FAILING = '# The sales data product\nid: urn:dp:sales\nowner:\n  email: sales-team # the team\nretentionDays: 900\n';
const FIXED = { id: 'urn:dp:sales', owner: { email: 'sales-team@example.com' }, retentionDays: 365 };

const fake = new FakeHostedModel();
let handlers: HttpHandler[];
let evaluation: typeof evaluationModule;
const clients: Client[] = [];

/** An MCP session as a caller with `roles`. */
async function session(roles: Role[]): Promise<Client> {
  const authorization = `Bearer ${await technicalToken({ sub: `fixer-${roles.join('-')}`, roles })}`;
  const server = governanceMcpServer({ api: inProcessCaller(handlers, { headers: { authorization }, deadline: Date.now() + 60_000 }) }, 'test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'propose-fix-test', version: '1.0.0' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const proposeFix = async (client: Client, descriptor: unknown) =>
  (await client.callTool({ name: 'propose_fix', arguments: { resourceType: 'dataproduct', environment: 'development', descriptor } })) as ToolAnswer;
/** The user messages of the fix requests the fake received, in order. */
const fixRequests = () =>
  fake.requests
    .filter((request) => (request.body?.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name === 'descriptor_fix')
    .map((request) => ((request.body?.messages ?? []) as Array<{ role: string; content: string }>).find((message) => message.role === 'user')?.content ?? '');

beforeAll(async () => {
  await fake.start();
  await useHandlersOn(SCHEMA, OVERRIDES);
  const policies = await import('../../functions/governance/policies');
  evaluation = await import('../../functions/governance/evaluation');
  const { proposeDescriptorFix } = await import('../../functions/assistant/descriptor-fixes');
  handlers = [proposeDescriptorFix];
  for (const [name, cueScript] of [
    ['Owners have an e-mail', 'owner: email: =~"@"'],
    ['Retention at most 400 days', 'retentionDays!: int & <=400'],
  ]) {
    const created = await invoke(policies.createPolicy, {
      method: 'POST',
      path: `${API}/policies`,
      body: { name, resourceType: 'dataproduct', engine: 'cue', cueScript },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await invoke(policies.publishPolicy, { method: 'POST', path: `${API}/policies/${id}/publish`, params: { id } })).status).toBeLessThan(300);
  }
});

beforeEach(() => fake.reset());

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await releaseHandlers();
  await fake.stop();
});

describe('propose_fix', () => {
  it('with no LLM configured: a clear tool error, and nothing asked of any model', async () => {
    const answer = await proposeFix(await session(['evaluator']), FAILING);
    expect(answer).toMatchObject({ isError: true });
    expect(textOf(answer)).toMatch(/409 .*none is configured: POST \/assistant\/v1\/llm\/config/);
    expect(fake.requests).toEqual([]);
  });

  it('returns only the proposal the engine passes: the first still fails, the second passes (a JSON Patch, a diff keeping the YAML comments)', async () => {
    const { saveLlmConfig } = await import('../../functions/assistant/llm-config');
    expect(
      (await invoke(saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body: fake.configuration('gpt-4o', 'sk-fix-0123456789') })).status,
    ).toBe(201);
    fake.scriptFixes({ ...FIXED, retentionDays: 900 }, FIXED);

    const answer = await proposeFix(await session(['evaluator']), FAILING);
    expect(answer.isError, textOf(answer)).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({
      passedAlready: false,
      rounds: 2,
      patch: [
        { op: 'replace', path: '/retentionDays', value: 365 },
        { op: 'replace', path: '/owner/email', value: 'sales-team@example.com' },
      ],
      descriptor: '# The sales data product\nid: urn:dp:sales\nowner:\n  email: sales-team@example.com # the team\nretentionDays: 365\n',
    });
    const diff = answer.structuredContent?.diff as string;
    for (const line of [
      '-  email: sales-team # the team',
      '+  email: sales-team@example.com # the team',
      '-retentionDays: 900',
      '+retentionDays: 365',
      ' # The sales data product',
    ])
      expect(diff.split('\n')).toContain(line);
    // The second request tells the model what its first proposal still failed.
    const [first, second] = fixRequests();
    expect(first).toMatch(/Owners have an e-mail/);
    expect(first).toMatch(/Retention at most 400 days/);
    expect(second).toMatch(/Your previous proposal still does not pass/);
    expect(second).toMatch(/retentionDays: invalid value 900/);
    expect(second).not.toMatch(/Owners have an e-mail/);
    // Each check was a dry run, never the resource's state.
    const checked = await invoke(evaluation.getEvaluationReport, {
      method: 'GET',
      path: `${API}/evaluation-reports/${answer.structuredContent?.reportId as string}`,
      params: { id: answer.structuredContent?.reportId as string },
    });
    expect(checked.body).toMatchObject({ status: 'completed', passed: true, dryRun: true, labels: ['descriptor-fix'] });
  });

  it('tells the model what was wrong with a proposal that is no descriptor, or another resource, and goes on', async () => {
    fake.scriptFixes([1], { ...FIXED, id: 'urn:dp:another' }, FIXED);
    const answer = await proposeFix(await session(['evaluator']), FAILING);
    expect(answer.isError, textOf(answer)).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ rounds: 3 });
    const [, second, third] = fixRequests();
    expect(second).toMatch(/descriptorJson is not a JSON object/);
    expect(third).toMatch(/the proposal is another resource \(urn:dp:another\): keep the resource's id urn:dp:sales/);
  });

  it('writes YAML anew when the patch cannot be applied to the document (an alias on its path)', async () => {
    fake.scriptFixes(FIXED);
    const aliased = 'defaults: &owner\n  email: nobody\nid: urn:dp:sales\nowner: *owner\nretentionDays: 900\n';
    const answer = await proposeFix(await session(['evaluator']), aliased);
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const { parse } = await import('yaml');
    expect(parse(answer.structuredContent?.descriptor as string)).toEqual(FIXED);
  });

  it('answers a tool error, and no fix, when no proposal passes within assistant.tools.fix-rounds (3)', async () => {
    fake.scriptFixes({ ...FIXED, retentionDays: 900 }, { ...FIXED, retentionDays: 800 }, { ...FIXED, retentionDays: 700 });
    const answer = await proposeFix(await session(['evaluator']), FAILING);
    expect(answer).toMatchObject({ isError: true });
    expect(textOf(answer)).toMatch(/422 .*No proposal passed every policy in force after 3 rounds/);
    expect(fixRequests()).toHaveLength(3);
  });

  it('a descriptor that passes already needs no model; a reader may not ask (403)', async () => {
    const passing = await proposeFix(await session(['evaluator']), FIXED);
    expect(passing.structuredContent).toMatchObject({ passedAlready: true, rounds: 0, patch: [], diff: '' });
    expect(fixRequests()).toEqual([]);

    const refused = await proposeFix(await session(['reader']), FAILING);
    expect(refused).toMatchObject({ isError: true });
    expect(textOf(refused)).toMatch(/403/);
  });
});
