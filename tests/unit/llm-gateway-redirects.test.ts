import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chat, embed, ProviderError } from '#lib/llm/llm-gateway';
import type { ModelConnection } from '#lib/llm/model-config-repository';

import { FakeServer } from '../fakes/fake-server';
import { completion } from '../fakes/hosted-model';

/**
 * A provider endpoint that answers with a redirect to another origin: the call fails naming the redirect,
 * and the other origin receives nothing (undici would carry `api-key` or a custom key header along).
 */
describe('the model provider gateway and redirects', () => {
  const elsewhere = new FakeServer(() => completion());
  const redirecting = new FakeServer();
  const options = { timeouts: { connectMs: 2000, readMs: 5000 }, retries: 2 };
  const connection = (customHeader?: string): ModelConnection => ({
    endpoint: redirecting.url,
    apiVersion: '2024-10-21',
    model: 'gpt-4o',
    deployment: 'chat',
    apiKey: 'provider-key-never-elsewhere',
    ...(customHeader ? { customHeader } : {}),
  });

  beforeAll(async () => {
    await elsewhere.start();
    await redirecting.start();
  });
  afterAll(async () => {
    await elsewhere.stop();
    await redirecting.stop();
  });

  it.each([undefined, 'Ocp-Apim-Subscription-Key'])('never follows a redirect with the key (key header %s)', async (customHeader) => {
    for (const status of [301, 302, 307, 308]) {
      redirecting.reset();
      elsewhere.reset();
      redirecting.answer({ status, headers: { location: `${elsewhere.url}/stolen` } });
      const failure = await chat(connection(customHeader), [{ role: 'user', content: 'hello' }], options).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ProviderError);
      expect((failure as ProviderError).message).toContain(`answered ${status}, a redirect: not followed`);
      expect((failure as ProviderError).message).not.toContain('provider-key-never-elsewhere');
      // Asked once (a redirect is not retried), and the other origin heard nothing.
      expect(redirecting.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    }
  });

  it('refuses a redirect of the embedder too', async () => {
    redirecting.reset();
    elsewhere.reset();
    redirecting.answer({ status: 307, headers: { location: `${elsewhere.url}/stolen` } });
    await expect(embed(connection(), ['a text'], options)).rejects.toThrow(/answered 307, a redirect: not followed/);
    expect(elsewhere.requests).toHaveLength(0);
  });
});
