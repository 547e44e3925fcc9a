import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { openApiDocument } from '#lib/api/openapi-document';

import { completion, FakeHostedModel, toolCalls } from '../fakes/hosted-model';
import { present } from '../support/present';
import { authorized } from '../support/tokens';

const baseUrl = inject('baseUrl');
const fake = new FakeHostedModel();

const post = async (path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: await authorized({ 'content-type': 'application/json' }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

beforeAll(async () => {
  await fake.start();
});

afterAll(async () => {
  await fake.stop();
});

describe('the assistant over HTTP', () => {
  it('answers malformed JSON with a 400 problem', async () => {
    const response = await post('/assistant/v1/llm/config', '{"provider": ');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 400, detail: expect.stringContaining('not valid JSON') });
  });

  it('stores both configurations, reads them masked, and forwards a chat query to the model', async () => {
    const config = (deployment: string, model: string) => ({
      provider: 'hosted_llm',
      api_key: 'e2e-key-0123456789',
      endpoint: fake.url,
      api_version: '2024-10-21',
      model,
      deployment,
      custom_header: 'Ocp-Apim-Subscription-Key',
    });
    // The e2e files share one service: another file (the console's assistant panel) may have stored
    // configurations and indexed them first, so the first save here is a creation (201) or a replacement
    // (200; the integration tests pin 201 on an empty database), and this file's embedder model is its
    // own: the index holds no chunk of it until this test refreshes it, so the first chat embeds nothing.
    const llm = await post('/assistant/v1/llm/config', config('gpt-deployment', 'gpt-4o'));
    expect([200, 201]).toContain(llm.status);
    expect([200, 201]).toContain((await post('/assistant/v1/embedder/config', config('embedding-deployment', 'text-embedding-e2e'))).status);
    expect((await post('/assistant/v1/llm/config', config('gpt-deployment', 'gpt-4o'))).status).toBe(200);

    const read = await fetch(`${baseUrl}/assistant/v1/llm/config`, { headers: await authorized() });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ api_key: '****6789', deployment: 'gpt-deployment' });

    fake.answer(completion('Governed.'));
    const chat = await post('/assistant/v1/llm/chat', { query: 'Is this governed?' });
    expect(chat.status).toBe(200);
    expect(await chat.json()).toMatchObject({ answer: 'Governed.' });
    const sent = present(fake.requests.at(-1), 'the request to the hosted model');
    expect(sent.path).toBe('/openai/deployments/gpt-deployment/chat/completions');
    expect(sent.query['api-version']).toBe('2024-10-21');
    expect(sent.headers['ocp-apim-subscription-key']).toBe('e2e-key-0123456789');
    expect(sent.headers['api-key']).toBeUndefined();

    // The bundled function holds the CUE guide (docs/cue-policies.md, bundled as text): its sections are indexed.
    fake.reset();
    const refresh = await post('/assistant/v1/index/refresh', {});
    expect(refresh.status).toBe(200);
    expect(fake.embeddingCalls().flat()).toEqual(expect.arrayContaining([expect.stringMatching(/^Writing CUE policies: Required fields first\n/)]));
    const index = await fetch(`${baseUrl}/assistant/v1/index`, { headers: await authorized() });
    expect(await index.json()).toMatchObject({ embedderModel: 'text-embedding-e2e', sourceTypes: { guide: expect.any(Number) } });

    // A grounded question: the bundled chat function embeds it, retrieves from the index and names its sources.
    fake.reset();
    const grounded = await post('/assistant/v1/llm/chat', { query: 'Required fields first?' });
    expect(grounded.status).toBe(200);
    expect(await grounded.json()).toMatchObject({ sources: expect.arrayContaining([expect.objectContaining({ type: 'guide', id: 'required-fields-first' })]) });
    expect(fake.embeddingCalls()).toEqual([['Required fields first?']]);

    // A drafted policy: the bundled chat function compiles the draft with the CUE engine (a broken
    // one is checked by both evaluators, CUE v0.4 in its worker too), repairs it once and runs it.
    fake.reset();
    fake.scriptDrafts('owner!: string &', 'owner!: string');
    fake.scriptChat(toolCalls({ name: 'draft_cue_policy', arguments: { requirement: 'names its owner', sampleDescriptor: '{"owner": "team-a"}' } }));
    const drafted = await post('/assistant/v1/llm/chat', { query: 'Draft an owner policy' });
    expect(drafted.status).toBe(200);
    expect(((await drafted.json()) as { draft: unknown }).draft).toEqual({
      cueScript: 'owner!: string',
      compiles: true,
      test: { satisfiesPolicy: true, errors: [] },
      repairs: 1,
    });
  });

  it('judges an LLM policy through the bundled evaluation function, with the stored LLM', async () => {
    const llm = await post('/assistant/v1/llm/config', {
      provider: 'hosted_llm',
      api_key: 'e2e-judge-key-0123456789',
      endpoint: fake.url,
      api_version: '2024-10-21',
      model: 'gpt-4o',
      deployment: 'judge-deployment',
    });
    expect(llm.status).toBeLessThan(300);
    const api = '/v1/computational-governance';
    expect(
      (
        await post(`${api}/resource-types`, {
          name: 'e2e-llm',
          configuration: { resourceName: 'id' },
          resolverConfiguration: { url: 'http://resolver.test', path: '/r' },
        })
      ).status,
    ).toBe(201);
    const created = await post(`${api}/policies`, {
      name: 'Owner is a team',
      resourceType: 'e2e-llm',
      engine: 'llm',
      llmRule: 'The owner is a team [fake:not-ok]',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await post(`${api}/policies/${id}/status`, { status: 'enabled' })).status).toBe(200);
    fake.reset();

    const evaluated = await fetch(`${baseUrl}${api}/evaluate`, {
      method: 'POST',
      headers: await authorized({ 'content-type': 'application/json', prefer: 'wait=20' }),
      body: JSON.stringify({ environment: 'development', resourceType: 'e2e-llm', descriptor: 'id: dp-1\nowner: alice\n' }),
    });
    expect(evaluated.status).toBe(200);
    expect(await evaluated.json()).toMatchObject({
      outcome: 'error',
      evaluationResults: [{ outcome: 'error', result: { errors: ['owner is missing'], details: { suggestions: ['add an owner field naming the team'] } } }],
    });
    expect(present(fake.requests.at(-1), 'the judgement request').path).toBe('/openai/deployments/judge-deployment/chat/completions');
  });

  it('lists the assistant endpoints in the OpenAPI document', async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as ReturnType<typeof openApiDocument>;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/assistant/v1/llm/config',
        '/assistant/v1/embedder/config',
        '/assistant/v1/llm/chat',
        '/assistant/v1/index/refresh',
        '/assistant/v1/index',
      ]),
    );
  });
});
