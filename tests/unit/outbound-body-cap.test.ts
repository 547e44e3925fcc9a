import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RemoteEngine } from '#lib/governance/engines/remote/remote-engine';
import { outboundFetch, OutboundTooLargeError } from '#lib/platform/http-client';

import { type FakeAnswer, FakeServer } from '../fakes/fake-server';

/** Every outbound answer is read through http.max-response-bytes: past it, reading fails naming the host and the limit. */
describe('the outbound body cap', () => {
  const big = 'x'.repeat(5000);
  const server = new FakeServer((request): FakeAnswer => {
    if (request.path === '/small') return { status: 201, headers: { 'x-kept': 'yes' }, body: { ok: true } };
    // FakeServer writes its head first: the body is chunked, its length unknown until read.
    if (request.path === '/streamed') return { status: 200, body: JSON.stringify({ satisfiesPolicy: true, errors: [big] }) };
    return { status: 200, headers: { 'content-length': String(big.length + 2) }, body: JSON.stringify(big) };
  });
  const timeouts = { connectMs: 2000, readMs: 5000, maxResponseBytes: 1024 };
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('passes an answer within the cap as it came: status, headers, body', async () => {
    const response = await outboundFetch(timeouts)(`${server.url}/small`);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-kept')).toBe('yes');
    expect(await response.json()).toEqual({ ok: true });
  });

  it('refuses an answer announced longer than the cap before reading it', async () => {
    const failure = await outboundFetch(timeouts)(`${server.url}/announced`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OutboundTooLargeError);
    expect((failure as Error).message).toBe(`The answer of ${new URL(server.url).host} is longer than 1024 bytes (http.max-response-bytes)`);
  });

  it('stops reading a streamed answer once it passes the cap', async () => {
    const response = await outboundFetch(timeouts)(`${server.url}/streamed`);
    await expect(response.text()).rejects.toThrow(/is longer than 1024 bytes \(http\.max-response-bytes\)/);
  });

  it('fails the pair of a remote engine that answers too much, naming the limit', async () => {
    const entity = {
      id: 'p',
      version: 1,
      kind: 'policy',
      engine: 'remote',
      cueScript: null,
      requireConcrete: true,
      remoteEngineUrl: `${server.url}/streamed`,
    } as const;
    const [[result]] = await new RemoteEngine(timeouts).evaluate([entity], [{ id: 'r', resourceType: 't', descriptor: {}, content: '{}' }]);
    expect(result).toMatchObject({
      satisfiesPolicy: false,
      isError: true,
      errors: [expect.stringMatching(/longer than 1024 bytes \(http\.max-response-bytes\)$/)],
    });
  });
});
