import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OutboundConnectionError, outboundErrorOf, outboundFetch, OutboundTimeoutError } from '#lib/platform/http-client';
import { retryAfterMs } from '#lib/platform/retry-after';

import { freePort } from '../../scripts/free-port';
import { unacceptingPort } from '../support/unaccepting-port';

let server: http.Server;
let base = '';
const pending = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === '/silent') {
      pending.add(response);
      return;
    }
    setTimeout(() => response.end('late but fine'), 150);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of pending) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the outbound HTTP client', () => {
  it('raises a typed read timeout naming the host and the setting', async () => {
    const error = await outboundFetch({ connectMs: 1000, readMs: 100 })(`${base}/silent`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboundTimeoutError);
    expect(error).toMatchObject({ timeout: 'read', afterMs: 100, host: new URL(base).host });
    expect((error as Error).message).toBe(`Reading from ${new URL(base).host} timed out after 100 ms (http.client-read-timeout)`);
  });

  it('never times out with 0', async () => {
    const response = await outboundFetch({ connectMs: 0, readMs: 0 })(`${base}/slow`);
    expect(await response.text()).toBe('late but fine');
  });

  it('raises a typed connection error naming the host when nothing listens', async () => {
    const port = await freePort();
    const error = await outboundFetch({ connectMs: 1000, readMs: 1000 })(`http://127.0.0.1:${port}/`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboundConnectionError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
  });

  it('recognises a connect timeout deep in a cause chain', () => {
    const error = outboundErrorOf(new Error('wrapped', { cause: Object.assign(new Error('connect'), { code: 'UND_ERR_CONNECT_TIMEOUT' }) }), 'h:1', {
      connectMs: 10_000,
      readMs: 45_000,
    });
    expect(error).toBeInstanceOf(OutboundTimeoutError);
    expect(error?.message).toBe('Connecting to h:1 timed out after 10000 ms (http.client-connect-timeout)');
  });
});

describe('Retry-After', () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  it.each([
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString() }, 10_000],
    [{}, undefined],
    [{ 'retry-after': 'soon' }, undefined],
  ])('%j -> %j ms', (entries, expected) => {
    expect(retryAfterMs(headers(entries), Date.UTC(2030, 0, 1))).toBe(expected);
  });
});

describe('a connect timeout', () => {
  it('is a typed error naming the host and http.client-connect-timeout', async () => {
    const { port, close } = await unacceptingPort();
    try {
      const error = await outboundFetch({ connectMs: 300, readMs: 5000 })(`http://127.0.0.1:${port}/`).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutboundTimeoutError);
      expect(error).toMatchObject({ timeout: 'connect', afterMs: 300, host: `127.0.0.1:${port}` });
      expect((error as Error).message).toBe(`Connecting to 127.0.0.1:${port} timed out after 300 ms (http.client-connect-timeout)`);
    } finally {
      close();
    }
  });

  it('reads like a refused connection on a URL a caller gave, so a filtered port and a closed one look alike', async () => {
    const { port, close } = await unacceptingPort();
    const callerTarget = { connectMs: 300, readMs: 5000, addressPolicy: { allowLoopback: true, allowPrivateNetworks: false } };
    try {
      const error = await outboundFetch(callerTarget)(`http://127.0.0.1:${port}/`).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutboundConnectionError);
      expect(error).toMatchObject({
        message: `Could not get an HTTP answer from 127.0.0.1:${port}`,
        reason: 'connect timeout after 300 ms (http.client-connect-timeout)',
      });
    } finally {
      close();
    }
  });
});
