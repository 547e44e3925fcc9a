import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { EvaluationResult } from '#lib/governance/evaluation/report';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as chatModule from '../../functions/assistant/chat';
import type * as embedderConfigModule from '../../functions/assistant/embedder-config';
import type * as llmConfigModule from '../../functions/assistant/llm-config';
import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as policiesModule from '../../functions/governance/policies';
import { FakeHostedModel, toolCalls } from '../fakes/hosted-model';
import { apiGatewayEvent, lambdaContext } from '../support/api-gateway-event';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { captureLogs } from '../support/log-capture';
import { authorized } from '../support/tokens';

const SCHEMA = 'it_assistant_tools';
const API_KEY = 'sk-tools-0123456789abcdef';
const MAX_ROUNDS = 2;
const DRAFT_REPAIRS = 2;
const OVERRIDES = `computational-governance-platform {
  assistant { encryption-key = "${randomBytes(32).toString('base64')}", provider-retries = 0, tools { max-rounds = ${MAX_ROUNDS}, draft-repairs = ${DRAFT_REPAIRS} } }
  resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]
}`;
const POLICIES = '/v1/computational-governance/policies';
const OWNER_SCRIPT = 'owner!: string & != ""';

const fake = new FakeHostedModel();
let handlers: {
  llm: typeof llmConfigModule;
  embedder: typeof embedderConfigModule;
  policies: typeof policiesModule;
  evaluation: typeof evaluationModule;
  chat: typeof chatModule;
};

interface Policy {
  id: string;
  version: number;
  name: string;
}

const createPolicy = async (name: string, cueScript: string, status?: 'enabled') => {
  const created = await invoke(handlers.policies.createPolicy, {
    method: 'POST',
    path: POLICIES,
    body: { name, description: `${name}, as the governance team wrote it`, resourceType: 'dataproduct', severity: 'error', engine: 'cue', cueScript },
  });
  expect(created.status).toBe(201);
  const policy = created.body as Policy;
  if (status) {
    const moved = await invoke(handlers.policies.changeStatusOfPolicy, {
      method: 'POST',
      path: `${POLICIES}/${policy.id}/status`,
      params: { id: policy.id },
      body: { status },
    });
    expect(moved.status).toBe(200);
  }
  return policy;
};

const evaluate = async (descriptor: string) => {
  const response = await invoke(handlers.evaluation.evaluate, {
    method: 'POST',
    path: '/v1/computational-governance/evaluate',
    body: { environment: 'development', resourceType: 'dataproduct', descriptor },
    headers: { prefer: 'wait=20' },
  });
  expect(response.status).toBe(200);
};

const ask = (query: string, headers?: Record<string, string>) =>
  invoke(handlers.chat.chat, { method: 'POST', path: '/assistant/v1/llm/chat', body: { query }, headers });

interface SentMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}
interface SentChat {
  messages: SentMessage[];
  tools?: { type: string; function: { name: string; parameters: Record<string, unknown> } }[];
  tool_choice?: string;
  temperature?: number;
  response_format?: { json_schema: { name: string } };
}

/** The chat turns the fake received (not the draft requests), in order. */
const chatTurns = () =>
  fake.requests.map((request) => request.body as unknown as SentChat).filter((body) => body.messages && body.response_format === undefined);
const draftRequests = () => fake.requests.map((request) => request.body as unknown as SentChat).filter((body) => body.response_format !== undefined);
/** The tool messages of a chat turn, by tool call id, their content read as JSON. */
const toolResults = (turn: SentChat) =>
  Object.fromEntries(turn.messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, JSON.parse(message.content ?? '')]));

const listPolicies = async () => (await invoke(handlers.policies.listPolicy, { method: 'GET', path: POLICIES })).body;

let owner: Policy;
let retention: Policy;

beforeAll(async () => {
  await fake.start();
  await useHandlersOn(SCHEMA, OVERRIDES);
  handlers = {
    llm: await import('../../functions/assistant/llm-config'),
    embedder: await import('../../functions/assistant/embedder-config'),
    policies: await import('../../functions/governance/policies'),
    evaluation: await import('../../functions/governance/evaluation'),
    chat: await import('../../functions/assistant/chat'),
  };
  expect(
    (await invoke(handlers.llm.saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body: fake.configuration('gpt-4o', API_KEY) })).status,
  ).toBe(201);
  expect(
    (
      await invoke(handlers.embedder.saveEmbedderConfig, {
        method: 'POST',
        path: '/assistant/v1/embedder/config',
        body: fake.configuration('text-embedding-3-small', API_KEY),
      })
    ).status,
  ).toBe(201);
  owner = await createPolicy('Data product owner', OWNER_SCRIPT, 'enabled');
  retention = await createPolicy('Retention period', 'retentionDays!: int & <=400', 'enabled');
  await createPolicy('Schema documented', 'outputPorts: [...{schema!: _}]');
  await evaluate('id: dp-good\nowner: team-a\nretentionDays: 30\n');
  await evaluate('id: dp-bad\nretentionDays: 900\n');
  await backgroundDispatchSettled();
  // The index is never refreshed here: chat makes no embeddings call, and the tools are what it reads.
});

beforeEach(() => fake.reset());

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await fake.stop();
});

describe('tools the LLM can call', () => {
  it('latest_results: the model gets the stored latest results of a policy, answers from them, and the call is logged with the request id', async () => {
    fake.scriptChat(toolCalls({ name: 'latest_results', arguments: { policyId: owner.id } }));
    const logs = captureLogs();
    const response = await ask('Which data products fail the owner policy?', { 'x-request-id': 'tools-request-1' }).finally(logs.stop);
    expect(response.status).toBe(200);

    const [first, second] = chatTurns();
    expect(chatTurns()).toHaveLength(2);
    expect(first.tools?.map((tool) => tool.function.name).sort()).toEqual(['draft_cue_policy', 'explain_result', 'find_policies', 'latest_results']);
    expect(first.tool_choice).toBe('auto');
    expect(first.tools?.find((tool) => tool.function.name === 'latest_results')?.function.parameters).toMatchObject({
      type: 'object',
      properties: { policyId: { type: 'string' }, resourceId: { type: 'string' } },
    });
    // The second turn holds the model's call and the tool's answer to it.
    expect(second.messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'latest_results' } }] });
    const stored = await invoke(handlers.evaluation.listResults, {
      method: 'GET',
      path: '/v1/computational-governance/results',
      query: { policyId: owner.id, latest: 'true' },
    });
    expect(stored.body.data).toHaveLength(2);
    const { call_1: result } = toolResults(second);
    expect(result.total).toBe(2);
    expect(result.results).toEqual(
      (stored.body.data as EvaluationResult[]).map((row) => ({
        policyId: owner.id,
        policyVersion: owner.version,
        kind: 'policy',
        resourceId: row.resource.id,
        environment: 'development',
        outcome: row.outcome,
        satisfiesPolicy: row.result.satisfiesPolicy,
        isError: false,
        errors: row.result.errors,
        errorCount: row.result.errors.length,
        creationTime: row.creationTime,
      })),
    );
    expect(result.results.find((row: { resourceId: string }) => row.resourceId === 'dp-bad')).toMatchObject({ outcome: 'error', satisfiesPolicy: false });
    // The fake answers quoting what it received: the answer is the model's, made from the tool's result.
    expect(response.body.answer).toContain('"resourceId":"dp-bad"');
    expect(response.body.usage).toEqual({ prompt_tokens: 10, completion_tokens: 14, total_tokens: 24 });
    expect(response.body).not.toHaveProperty('draft');

    const calls = logs.lines.filter((line) => line.msg === 'assistant tool call');
    expect(calls).toEqual([
      expect.objectContaining({
        requestId: 'tools-request-1',
        tool: 'latest_results',
        outcome: 'ok',
        round: 1,
        toolCallId: 'call_1',
        durationMs: expect.any(Number),
      }),
    ]);
    expect(JSON.stringify(calls)).not.toContain(owner.id);
    expect(JSON.stringify(logs.lines)).not.toContain(API_KEY);
  });

  it('find_policies: the filters of the policies list', async () => {
    fake.scriptChat(toolCalls({ name: 'find_policies', arguments: { status: ['enabled'], text: 'retention' } }, { name: 'find_policies', arguments: {} }));
    expect((await ask('Is there an enabled retention policy?')).status).toBe(200);
    const results = toolResults(chatTurns()[1]);
    expect(results.call_1).toEqual({
      total: 1,
      policies: [
        {
          id: retention.id,
          name: 'Retention period',
          version: 1,
          status: 'enabled',
          engine: 'cue',
          resourceType: 'dataproduct',
          environment: null,
          severity: 'error',
        },
      ],
    });
    const all = await listPolicies();
    expect(results.call_2.total).toBe(all.meta.pagination.total);
    expect(results.call_2.policies.map((policy: Policy) => policy.id)).toEqual(all.data.map((policy: Policy) => policy.id));
  });

  it("explain_result: a result's errors with the text of the policy version that produced them", async () => {
    fake.scriptChat(toolCalls({ name: 'explain_result', arguments: { policyId: retention.id, resourceId: 'dp-bad' } }));
    expect((await ask('Why does dp-bad fail the retention policy?')).status).toBe(200);
    const { call_1: explained } = toolResults(chatTurns()[1]);
    const stored = await invoke(handlers.evaluation.listResults, {
      method: 'GET',
      path: '/v1/computational-governance/results',
      query: { policyId: retention.id, resourceId: 'dp-bad', latest: 'true' },
    });
    expect(explained.results).toHaveLength(1);
    expect(explained.results[0]).toMatchObject({ resourceId: 'dp-bad', outcome: 'error', errors: stored.body.data[0].result.errors });
    expect(explained.results[0].errors.join(' ')).toContain('retentionDays');
    expect(explained.policies).toEqual([
      {
        id: retention.id,
        version: 1,
        name: 'Retention period',
        description: 'Retention period, as the governance team wrote it',
        engine: 'cue',
        cueScript: 'retentionDays!: int & <=400',
        requireConcrete: true,
      },
    ]);
  });

  it('draft_cue_policy: a draft that does not compile goes back to the model with the error once, the repaired one is tried on the sample; nothing is saved', async () => {
    const before = await listPolicies();
    const broken = 'owner!: string &';
    const sample = 'id: dp-3\nname: Sales\n';
    fake.scriptDrafts(broken, OWNER_SCRIPT);
    fake.scriptChat(toolCalls({ name: 'draft_cue_policy', arguments: { requirement: 'Every data product names its owner', sampleDescriptor: sample } }));
    const logs = captureLogs();
    const response = await ask('Write me a policy: every data product names its owner. Try it on my sample.').finally(logs.stop);
    expect(response.status).toBe(200);

    const drafts = draftRequests();
    expect(drafts).toHaveLength(2);
    for (const draft of drafts) {
      expect(draft.temperature).toBe(0);
      expect(draft.response_format?.json_schema.name).toBe('cue_policy_draft');
      expect(draft.messages[1].content).toContain('Every data product names its owner');
    }
    expect(drafts[0].messages[1].content).not.toContain('does not compile');
    // The second request holds the broken draft and what the CUE engine said of it.
    expect(drafts[1].messages[1].content).toContain(broken);
    expect(drafts[1].messages[1].content).toMatch(/CUE does not compile \(line 1, column \d+\): \S/);

    const expected = {
      cueScript: OWNER_SCRIPT,
      compiles: true,
      test: { satisfiesPolicy: false, errors: ['owner: field is required but not present'] },
      repairs: 1,
    };
    expect(response.body.draft).toEqual(expected);
    expect(toolResults(chatTurns()[1]).call_1).toEqual(expected);
    expect(await listPolicies()).toEqual(before);

    const [logged] = logs.lines.filter((line) => line.msg === 'assistant tool call');
    expect(logged).toMatchObject({ tool: 'draft_cue_policy', outcome: 'ok' });
    // Neither the requirement nor the sample's content is logged.
    expect(JSON.stringify(logs.lines)).not.toContain('Sales');
    expect(JSON.stringify(logs.lines)).not.toContain('names its owner');
  });

  it(`draft_cue_policy: at most ${DRAFT_REPAIRS} repairs, then the draft is answered as not compiling; a sample that satisfies it passes`, async () => {
    fake.scriptDrafts('a: {', 'a: {{', 'a: [', 'name!: string');
    fake.scriptChat(
      toolCalls({ name: 'draft_cue_policy', arguments: { requirement: 'impossible' } }),
      toolCalls({ name: 'draft_cue_policy', arguments: { requirement: 'names', sampleDescriptor: { name: 'x' } } }),
    );
    const response = await ask('Draft twice');
    expect(response.status).toBe(200);
    const first = toolResults(chatTurns()[1]).call_1;
    expect(first).toMatchObject({ cueScript: 'a: [', compiles: false, repairs: DRAFT_REPAIRS, compileError: expect.stringContaining('CUE does not compile') });
    expect(draftRequests()).toHaveLength(DRAFT_REPAIRS + 2);
    // The answer carries the last draft.
    expect(response.body.draft).toEqual({ cueScript: 'name!: string', compiles: true, test: { satisfiesPolicy: true, errors: [] }, repairs: 0 });
  });

  it('bad calls go back to the model as tool errors: an unknown tool, arguments that are no JSON or do not fit, a result that does not exist', async () => {
    fake.scriptChat(
      toolCalls(
        { name: 'drop_tables', arguments: {} },
        { name: 'latest_results', arguments: '{not json' },
        { name: 'latest_results', arguments: {} },
        { name: 'find_policies', arguments: { status: ['bogus'], limit: 1000 } },
        { name: 'explain_result', arguments: { policyId: owner.id, resourceId: 'no-such-resource' } },
      ),
    );
    const logs = captureLogs();
    const response = await ask('Break things').finally(logs.stop);
    expect(response.status).toBe(200);
    const results = toolResults(chatTurns()[1]);
    expect(results.call_1.error).toBe('No tool is named "drop_tables"; the tools are find_policies, latest_results, explain_result, draft_cue_policy');
    expect(results.call_2.error).toMatch(/^The arguments are not JSON: /);
    expect(results.call_3).toEqual({
      error: 'The arguments do not fit the schema of latest_results',
      errors: [{ path: 'resourceId', message: 'give resourceId or policyId (or both)' }],
    });
    expect(results.call_4.errors.map((error: { path: string }) => error.path).sort()).toEqual(['limit', 'status.0']);
    expect(results.call_5.error).toBe(`No result of the policy ${owner.id} for the resource no-such-resource is recorded`);
    expect(logs.lines.filter((line) => line.msg === 'assistant tool call').map((line) => line.outcome)).toEqual([
      'unknown-tool',
      'invalid-arguments',
      'invalid-arguments',
      'invalid-arguments',
      'refused',
    ]);
  });

  it(`stops offering tools after ${MAX_ROUNDS} rounds: the next turn must answer`, async () => {
    const call = () => toolCalls({ name: 'find_policies', arguments: { text: 'owner' } });
    fake.scriptChat(call(), call(), call(), call());
    const response = await ask('Loop forever');
    expect(response.status).toBe(200);
    const turns = chatTurns();
    expect(turns.map((turn) => turn.tool_choice)).toEqual([...Array(MAX_ROUNDS).fill('auto'), 'none']);
    expect(turns.at(-1)?.messages.filter((message) => message.role === 'tool')).toHaveLength(MAX_ROUNDS);
    expect(response.body.answer).toMatch(/^From the tools: /);
  });

  it('stops the provider call in flight when the function runs out of time, and stores no turn', async () => {
    const database = await import('#lib/db/shared-database').then(({ getDatabase }) => getDatabase());
    const conversations = () => database.sql.unsafe(`select id from ${SCHEMA}.conversations`);
    const before = await conversations();
    fake.scriptChat(toolCalls({ name: 'find_policies', arguments: {} }), { hang: true });
    // The handler answers 504 (and aborts its work) a second before the function's deadline.
    const context = { ...lambdaContext('out-of-time'), getRemainingTimeInMillis: () => 1_500 };
    const event = apiGatewayEvent({
      method: 'POST',
      path: '/assistant/v1/llm/chat',
      headers: await authorized({ 'content-type': 'application/json' }),
      body: JSON.stringify({ query: 'Slow' }),
    });
    const response = await handlers.chat.chat(event, context);
    expect(response.statusCode).toBe(504);
    // The second turn hung; the request's signal reached it through the attempt's own.
    await vi.waitFor(() => expect(fake.abandoned).toHaveLength(1));
    expect(chatTurns()).toHaveLength(2);
    expect(await conversations()).toEqual(before);
  });
});
