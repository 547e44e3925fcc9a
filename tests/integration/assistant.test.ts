import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import type * as chatModule from '../../functions/assistant/chat';
import type * as embedderConfigModule from '../../functions/assistant/embedder-config';
import type * as llmConfigModule from '../../functions/assistant/llm-config';
import { freePort } from '../../scripts/free-port';
import { completion, FakeHostedModel, providerError } from '../fakes/hosted-model';
import { testDatabase, testSettings } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { unacceptingPort } from '../support/unaccepting-port';

const SCHEMA = 'it_assistant';
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const OVERRIDES = `
computational-governance-platform.assistant { encryption-key = "${ENCRYPTION_KEY}", provider-retries = 2, max-query-length = 50 }
computational-governance-platform.http { client-connect-timeout = "2s", client-read-timeout = "400ms" }
`;
const API_KEY = 'sk-live-0123456789abcdef';

const fake = new FakeHostedModel();
let database: Database;
let handlers: {
  llm: typeof llmConfigModule;
  embedder: typeof embedderConfigModule;
  chat: typeof chatModule;
};

const config = (overrides: Record<string, unknown> = {}) => ({ ...fake.configuration('gpt-4o', API_KEY), deployment: 'chat-deployment', ...overrides });

const saveLlm = (body: unknown, query?: Record<string, string>) =>
  invoke(handlers.llm.saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body, query });
const saveEmbedder = (body: unknown, query?: Record<string, string>) =>
  invoke(handlers.embedder.saveEmbedderConfig, { method: 'POST', path: '/assistant/v1/embedder/config', body, query });
const ask = (query: unknown) => invoke(handlers.chat.chat, { method: 'POST', path: '/assistant/v1/llm/chat', body: { query } });

beforeAll(async () => {
  await fake.start();
  await useHandlersOn(SCHEMA, OVERRIDES);
  database = await testDatabase(SCHEMA);
  handlers = {
    llm: await import('../../functions/assistant/llm-config'),
    embedder: await import('../../functions/assistant/embedder-config'),
    chat: await import('../../functions/assistant/chat'),
  };
});

beforeEach(async () => {
  fake.reset();
  await database.sql.unsafe(`delete from ${SCHEMA}.model_configurations`);
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
  await fake.stop();
});

describe('model configuration', () => {
  it('is 404 before it is stored', async () => {
    const response = await invoke(handlers.llm.getLlmConfig, { method: 'GET', path: '/assistant/v1/llm/config' });
    expect(response.status).toBe(404);
    expect(response.body.detail).toContain('No LLM configuration');
  });

  it('is created (201), then replaced (200), and read back with the key masked', async () => {
    const created = await saveLlm(config());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...config(), api_key: '****cdef', custom_header: null, created_by: 'test-caller', updated_by: 'test-caller' });

    const replaced = await saveLlm(config({ model: 'gpt-4.1', custom_header: 'Ocp-Apim-Subscription-Key' }));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ model: 'gpt-4.1', custom_header: 'Ocp-Apim-Subscription-Key', api_key: '****cdef' });

    const read = await invoke(handlers.llm.getLlmConfig, { method: 'GET', path: '/assistant/v1/llm/config' });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(replaced.body);
    expect(JSON.stringify(read.body)).not.toContain(API_KEY);
  });

  it('keeps the LLM and the embedder apart', async () => {
    await saveLlm(config({ model: 'chat-model' }));
    await saveEmbedder(config({ model: 'embedding-model', deployment: 'emb' }));
    const llm = await invoke(handlers.llm.getLlmConfig, { method: 'GET', path: '/assistant/v1/llm/config' });
    const embedder = await invoke(handlers.embedder.getEmbedderConfig, { method: 'GET', path: '/assistant/v1/embedder/config' });
    expect([llm.body.model, embedder.body.model]).toEqual(['chat-model', 'embedding-model']);
  });

  it('stores the API key encrypted, never in clear', async () => {
    await saveLlm(config());
    const [row] = await database.sql.unsafe(`select * from ${SCHEMA}.model_configurations where kind = 'llm'`);
    expect(JSON.stringify(row)).not.toContain(API_KEY);
    expect(row.api_key_ciphertext).toMatch(/^v1\.[0-9a-f]{8}\./);
  });

  it.each([
    ['provider', { provider: 'openai' }, 'provider must be "hosted_llm"'],
    ['api_key', { api_key: '' }, 'api_key must not be empty'],
    ['endpoint', { endpoint: 'not a url' }, 'absolute http(s) URL'],
    ['endpoint', { endpoint: 'ftp://files.test' }, 'absolute http(s) URL'],
    ['api_version', { api_version: '   ' }, 'api_version must not be empty'],
    ['model', { model: 42 }, 'model is required'],
    ['deployment', { deployment: 'a/b' }, 'deployment may hold only'],
    ['custom_header', { custom_header: 'Bad Header:' }, 'valid HTTP header name'],
    ['api_key', { api_key: 'sk-live-secret\nX-Injected: 1' }, 'visible ASCII'],
    ['model', { model: 'gpt\u0007' }, 'control characters'],
    ['unknown', { unknown: 1 }, 'unknown field'],
  ])('rejects a bad %s with a 400 naming the field, storing nothing', async (field, overrides, message) => {
    const response = await saveLlm(config(overrides));
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.body.errors).toEqual([{ path: field, message: expect.stringContaining(message) }]);
    expect(await database.sql.unsafe(`select 1 from ${SCHEMA}.model_configurations`)).toHaveLength(0);
  });

  it('rejects each missing required field by name', async () => {
    const response = await saveLlm({ provider: 'hosted_llm' });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['api_key', 'api_version', 'deployment', 'endpoint', 'model']);
  });
});

describe('verify on save', () => {
  it('makes a one-token chat for the LLM before storing', async () => {
    const response = await saveLlm(config(), { verify: 'true' });
    expect(response.status).toBe(201);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].path).toBe('/openai/deployments/chat-deployment/chat/completions');
    expect(fake.requests[0].body).toMatchObject({ max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] });
  });

  it('makes a one-input embedding for the embedder before storing', async () => {
    const response = await saveEmbedder(config({ deployment: 'emb' }), { verify: 'true' });
    expect(response.status).toBe(201);
    expect(fake.requests.map((request) => request.path)).toEqual(['/openai/deployments/emb/embeddings']);
    expect(fake.requests[0].body).toMatchObject({ input: ['ping'] });
  });

  it("answers 422 with the provider's reason and stores nothing when the provider refuses", async () => {
    fake.answer(providerError(401, 'Access denied due to invalid subscription key'));
    const response = await saveLlm(config(), { verify: 'true' });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ upstreamStatus: 401, detail: expect.stringContaining('Access denied due to invalid subscription key') });
    expect(JSON.stringify(response.body)).not.toContain(API_KEY);
    expect(await database.sql.unsafe(`select 1 from ${SCHEMA}.model_configurations`)).toHaveLength(0);
  });

  it('never repeats the API key the provider echoes in its error', async () => {
    fake.answer(providerError(401, `Key ${API_KEY} is not valid for this resource`));
    const response = await saveLlm(config(), { verify: 'true' });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).not.toContain(API_KEY);
    expect(response.body.detail).toContain('Key [REDACTED] is not valid');
  });

  it('falls back to max_completion_tokens for models that refuse max_tokens', async () => {
    fake.answer(providerError(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."));
    const response = await saveLlm(config(), { verify: 'true' });
    expect(response.status).toBe(201);
    expect(fake.requests.map((request) => Object.keys(request.body).filter((key) => key.startsWith('max_')))).toEqual([
      ['max_tokens'],
      ['max_completion_tokens'],
    ]);
  });

  it('does not call the provider without verify=true', async () => {
    await saveLlm(config());
    expect(fake.requests).toHaveLength(0);
  });
});

describe('chat', () => {
  const configureBoth = async (llm: Record<string, unknown> = {}) => {
    await saveLlm(config(llm));
    await saveEmbedder(config({ deployment: 'emb', model: 'text-embedding-3-small' }));
    fake.reset();
  };

  it('answers 409 naming the missing configurations', async () => {
    let response = await ask('hello');
    expect(response.status).toBe(409);
    expect(response.body.missing).toEqual(['llm', 'embedder']);
    await saveLlm(config());
    response = await ask('hello');
    expect(response.status).toBe(409);
    expect(response.body.missing).toEqual(['embedder']);
    expect(response.body.detail).toContain('embedder configuration');
    expect(fake.requests).toHaveLength(0);
  });

  it('sends the query to the deployment with the api-version, the key in api-key, and answers', async () => {
    await configureBoth();
    fake.answer(completion('Policies are rules.', 'gpt-4o-2024-08-06'));
    const response = await ask('What is a policy?');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      answer: 'Policies are rules.',
      model: 'gpt-4o-2024-08-06',
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
      // The index was never built: nothing to ground on, and no embedding call.
      sources: [],
      conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/openai/deployments/chat-deployment/chat/completions');
    expect(request.query).toEqual({ 'api-version': '2024-10-21' });
    expect(request.headers['api-key']).toBe(API_KEY);
    expect(request.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: expect.stringContaining('Answer only from the sources') },
        { role: 'user', content: expect.stringMatching(/holds no source for this question[^]*Question: What is a policy\?$/) },
      ],
      // The tools it may call (assistant-tools.test.ts).
      tools: expect.arrayContaining([{ type: 'function', function: expect.objectContaining({ name: 'find_policies', parameters: expect.any(Object) }) }]),
      tool_choice: 'auto',
    });
  });

  it('sends the key only in the custom header when one is configured', async () => {
    await configureBoth({ custom_header: 'Ocp-Apim-Subscription-Key' });
    expect((await ask('hi')).status).toBe(200);
    expect(fake.requests[0].headers['ocp-apim-subscription-key']).toBe(API_KEY);
    expect(fake.requests[0].headers['api-key']).toBeUndefined();
  });

  it.each([
    [400, 'Bad request from the model'],
    [401, 'Access denied'],
  ])('maps a provider %i to 502 carrying the status, without retrying', async (status, message) => {
    await configureBoth();
    fake.answer(providerError(status, message));
    const response = await ask('hi');
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ upstreamStatus: status, detail: expect.stringContaining(message) });
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a 429 honouring Retry-After, then answers', async () => {
    await configureBoth();
    fake.answer(providerError(429, 'Too many requests', { 'retry-after': '1' }), completion('after the wait'));
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const response = await ask('hi');
    const waits = timers.mock.calls.map((call) => call[1]);
    timers.mockRestore();
    expect(waits).toContain(1000);
    expect(response.status).toBe(200);
    expect(response.body.answer).toBe('after the wait');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].headers['api-key']).toBe(API_KEY);
  });

  it('retries a 500 a bounded number of times, then answers 502 with the status', async () => {
    await configureBoth();
    fake.answer(providerError(500, 'boom'), providerError(500, 'boom'), providerError(500, 'boom'), completion('never reached'));
    const response = await ask('hi');
    expect(response.status).toBe(502);
    expect(response.body.upstreamStatus).toBe(500);
    expect(fake.requests).toHaveLength(3);
  });

  it('does not wait for a Retry-After longer than it allows', async () => {
    await configureBoth();
    fake.answer(providerError(429, 'come back tomorrow', { 'retry-after': '86400' }));
    const response = await ask('hi');
    expect(response.status).toBe(502);
    expect(response.body.upstreamStatus).toBe(429);
    expect(fake.requests).toHaveLength(1);
  });

  it('answers 504 when the provider does not answer within the read timeout', async () => {
    await configureBoth();
    fake.answer({ hang: true });
    const response = await ask('hi');
    expect(response.status).toBe(504);
    expect(response.body.detail).toMatch(/timed out after 400 ms \(http\.client-read-timeout\)/);
    expect(fake.requests).toHaveLength(1);
  });

  it('answers 502 when the provider cannot be reached, after retrying', async () => {
    const port = await freePort();
    await configureBoth({ endpoint: `http://127.0.0.1:${port}` });
    const { logger } = await import('#lib/logging/logger');
    const warnings = vi.spyOn(logger, 'warn');
    const response = await ask('hi');
    const retries = warnings.mock.calls.filter((call) => call[1] === 'model provider call failed; retrying');
    warnings.mockRestore();
    expect(retries).toHaveLength(2);
    expect(response.status).toBe(502);
    expect(response.body.detail).toContain(`Could not get an HTTP answer from 127.0.0.1:${port}`);
    expect(response.body.upstreamStatus).toBeUndefined();
  });

  it('answers a connect timeout as it answers a closed port (502, same words), without retrying it', async () => {
    const { port, close } = await unacceptingPort();
    try {
      await configureBoth({ endpoint: `http://127.0.0.1:${port}` });
      const { logger } = await import('#lib/logging/logger');
      const warnings = vi.spyOn(logger, 'warn');
      const response = await ask('hi');
      const retries = warnings.mock.calls.filter((call) => call[1] === 'model provider call failed; retrying');
      warnings.mockRestore();
      expect(retries).toHaveLength(0);
      expect(response.status).toBe(502);
      expect(response.body.detail).toBe(`Could not get an HTTP answer from 127.0.0.1:${port}`);
    } finally {
      close();
    }
  });

  it.each([
    ['', 'query must not be empty'],
    ['   ', 'query must not be empty'],
    [42, 'query is required'],
    ['x'.repeat(51), 'longer than 50 characters'],
  ])('rejects the query %j with a 400', async (query, message) => {
    await configureBoth();
    const response = await ask(query);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'query', message: expect.stringContaining(message) }]);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('key rotation', () => {
  it('re-encrypts stored keys with the new key at start, and they still work', async () => {
    await saveLlm(config());
    const [before] = await database.sql.unsafe(`select api_key_ciphertext from ${SCHEMA}.model_configurations`);
    const next = randomBytes(32).toString('base64');
    const rotated = `${OVERRIDES}\ncomputational-governance-platform.assistant { encryption-key = "${next}", previous-encryption-keys = ["${ENCRYPTION_KEY}"] }`;
    const report = await runStartupTasks(await testSettings(SCHEMA, rotated));
    expect(report.tasks.assistantKeys).toBe('1 re-encrypted');
    expect((await runStartupTasks(await testSettings(SCHEMA, rotated))).tasks.assistantKeys).toBe('0 re-encrypted');
    const [after] = await database.sql.unsafe(`select api_key_ciphertext from ${SCHEMA}.model_configurations`);
    expect(after.api_key_ciphertext.split('.')[1]).not.toBe(before.api_key_ciphertext.split('.')[1]);
    const { decryptApiKey } = await import('#lib/llm/api-key-encryption');
    expect(decryptApiKey(after.api_key_ciphertext, { current: Buffer.from(next, 'base64'), previous: [] })).toBe(API_KEY);
  });

  it('reports a key no configured key can read, keeps reads working, and chat names what to save again', async () => {
    await saveLlm(config());
    await saveEmbedder(config({ deployment: 'emb' }));
    const lost = `${OVERRIDES}\ncomputational-governance-platform.assistant.encryption-key = "${randomBytes(32).toString('base64')}"`;
    const report = await runStartupTasks(await testSettings(SCHEMA, lost));
    expect(report.tasks.assistantKeys).toBe('0 re-encrypted, llm and embedder unreadable');
    // The handlers still run with the original key; simulate the lost key by corrupting the key id.
    await database.sql.unsafe(
      `update ${SCHEMA}.model_configurations set api_key_ciphertext = replace(api_key_ciphertext, split_part(api_key_ciphertext, '.', 2), '00000000') where kind = 'llm'`,
    );
    const read = await invoke(handlers.llm.getLlmConfig, { method: 'GET', path: '/assistant/v1/llm/config' });
    expect(read.status).toBe(200);
    expect(read.body.api_key).toBe('****cdef');
    const response = await ask('hi');
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ unreadable: 'llm', detail: expect.stringContaining('POST /assistant/v1/llm/config again') });
  });
});

describe('start-up when deployed', () => {
  it('fails without an encryption key, saying what to set', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'cgp-prod-startup');
    try {
      // The test PostgreSQL has no TLS, which a deployed start-up requires unless told otherwise.
      await expect(runStartupTasks(await testSettings(SCHEMA, 'computational-governance-platform.database.ssl = "disable"'))).rejects.toThrow(
        /ASSISTANT_ENCRYPTION_KEY/,
      );
    } finally {
      vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', '');
    }
  });
});
