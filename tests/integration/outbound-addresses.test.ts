import { randomBytes } from 'node:crypto';
import net from 'node:net';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { forbiddenAddress, forbiddenUrl } from '#lib/platform/address-policy';
import { OutboundConnectionError, outboundFetch } from '#lib/platform/http-client';

import { freePort } from '../../scripts/free-port';
import { FakeServer } from '../fakes/fake-server';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { unacceptingPort } from '../support/unaccepting-port';

const STRICT = { allowLoopback: false, allowPrivateNetworks: false };
const OPEN = { allowLoopback: true, allowPrivateNetworks: true };

describe('the address policy of URLs callers give', () => {
  it('always refuses link-local and instance-metadata addresses, in every spelling', () => {
    const literals = [
      'http://169.254.169.254/latest/meta-data/',
      'http://169.254.169.254./',
      'http://2852039166/',
      'http://[fe80::1]/',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
    ];
    // IPv4 inside IPv6: mapped, NAT64 (through a NAT64 gateway) and 6to4.
    const embedded = [
      'http://[::ffff:169.254.169.254]/',
      'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[64:ff9b::169.254.169.254]/',
      'http://[2002:a9fe:a9fe::1]/',
    ];
    const names = ['http://metadata.google.internal./', 'http://instance-data/'];
    for (const url of [...literals, ...embedded, ...names]) expect(forbiddenUrl(url, OPEN), url).toBe('must not point at a link-local or metadata address');
    for (const url of ['http://0.0.0.0:3002/', 'http://0/', 'http://[::]/', 'http://224.0.0.1/']) {
      expect(forbiddenUrl(url, OPEN), url).toBe('must not point at an unspecified, multicast or broadcast address');
    }
  });

  it('refuses loopback and private networks unless allowed, in every spelling', () => {
    for (const url of [
      'http://127.0.0.1:9001/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://017700000001/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://LOCALHOST./',
      'http://localhost:3002/',
      'http://api.localhost/',
    ]) {
      expect(forbiddenUrl(url, STRICT), url).toBe('must not point at a loopback address (http.allow-loopback)');
      expect(forbiddenUrl(url, OPEN), url).toBeUndefined();
    }
    for (const url of [
      'http://10.1.2.3/',
      'http://172.20.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://[fd12::1]/',
      'http://[64:ff9b::10.0.0.1]/',
      'http://[2002:c0a8:101::]/',
    ]) {
      expect(forbiddenUrl(url, STRICT), url).toBe('must not point at a private network address (http.allow-private-networks)');
      expect(forbiddenUrl(url, OPEN), url).toBeUndefined();
    }
    expect(forbiddenUrl('https://my-resource.openai.azure.com/', STRICT)).toBeUndefined();
    expect(forbiddenAddress('8.8.8.8', STRICT)).toBeUndefined();
    expect(forbiddenAddress('2001:4860:4860::8888', STRICT)).toBeUndefined();
    expect(forbiddenAddress('64:ff9b::808:808', STRICT)).toBeUndefined();
  });

  it('checks the address a name resolves to when connecting, so DNS cannot swap it after a check', async () => {
    const server = await new FakeServer(() => ({ status: 200, body: {} })).start();
    try {
      const port = new URL(server.url).port;
      const failure = await outboundFetch({ connectMs: 2000, readMs: 2000, addressPolicy: STRICT })(`http://localhost:${port}/x`).catch((error) => error);
      expect(failure).toBeInstanceOf(OutboundConnectionError);
      expect(failure.message).toBe(`Could not get an HTTP answer from localhost:${port}`);
      expect(failure.reason).toMatch(/localhost resolves to a loopback address/);
      const literal = await outboundFetch({ connectMs: 2000, readMs: 2000, addressPolicy: STRICT })(`http://127.0.0.1:${port}/x`).catch((error) => error);
      expect(literal).toBeInstanceOf(OutboundConnectionError);
      expect(server.requests).toHaveLength(0);
      expect((await outboundFetch({ connectMs: 2000, readMs: 2000, addressPolicy: OPEN })(`http://localhost:${port}/x`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('checks every connection, also where a redirect leads to an address given literally', async () => {
    // Linux connects 0.0.0.0 to the local host: a redirect there reached a loopback-only service.
    const inside = await new FakeServer(() => ({ status: 200, body: { secret: true } })).start();
    const outside = await new FakeServer(() => ({ status: 302, headers: { location: `http://0.0.0.0:${new URL(inside.url).port}/secret` } })).start();
    try {
      const failure = await outboundFetch({ connectMs: 2000, readMs: 2000, addressPolicy: { allowLoopback: true, allowPrivateNetworks: false } })(
        `${outside.url}/x`,
      ).catch((error) => error);
      expect(failure).toBeInstanceOf(OutboundConnectionError);
      expect(failure.reason).toMatch(/0\.0\.0\.0 is an unspecified, multicast or broadcast address/);
      expect(outside.requests).toHaveLength(1);
      expect(inside.requests).toHaveLength(0);
    } finally {
      await Promise.all([inside.stop(), outside.stop()]);
    }
  });
});

describe('endpoints, with loopback refused (as when deployed)', () => {
  const ENCRYPTION_KEY = randomBytes(32).toString('base64');
  beforeAll(async () => {
    await useHandlersOn(
      'it_outbound_strict',
      `computational-governance-platform.assistant.encryption-key = "${ENCRYPTION_KEY}"
       computational-governance-platform.http.allow-loopback = false`,
    );
  });
  afterAll(() => releaseHandlers());

  it('refuses such URLs when they are saved, naming the field and the setting', async () => {
    const llm = await import('../../functions/assistant/llm-config');
    const model = { provider: 'hosted_llm', api_key: 'key-0123456789', api_version: '2024-10-21', model: 'gpt-4o', deployment: 'd' };
    const saved = await invoke(llm.saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body: { ...model, endpoint: 'http://127.0.0.1:9001' } });
    expect(saved.status).toBe(400);
    expect(saved.body.errors).toEqual([{ path: 'endpoint', message: 'endpoint must not point at a loopback address (http.allow-loopback)' }]);
    const { registerResourceType } = await import('../../functions/governance/resource-types');
    const type = await invoke(registerResourceType, {
      method: 'POST',
      path: '/v1/computational-governance/resource-types',
      body: { name: 'ssrf', resolverConfiguration: { url: 'http://169.254.169.254', path: '/latest' } },
    });
    expect(type.status).toBe(400);
    expect(type.body.errors).toEqual([{ path: 'resolverConfiguration.url', message: 'url must not point at a link-local or metadata address' }]);
    const embedder = await import('../../functions/assistant/embedder-config');
    const hex = await invoke(embedder.saveEmbedderConfig, {
      method: 'POST',
      path: '/assistant/v1/embedder/config',
      body: { ...model, model: 'text-embedding-3-small', endpoint: 'http://0x7f.1:9001' },
    });
    expect(hex.status).toBe(400);
    expect(hex.body.errors).toEqual([{ path: 'endpoint', message: 'endpoint must not point at a loopback address (http.allow-loopback)' }]);
    const policies = await import('../../functions/governance/policies');
    const policy = await invoke(policies.createPolicy, {
      method: 'POST',
      path: '/v1/computational-governance/policies',
      body: { name: 'ssrf', resourceType: 'dataproduct', environment: null, severity: 'error', engine: 'remote', remoteEngineUrl: 'http://[::1]:3002/' },
    });
    expect(policy.status).toBe(400);
    expect(policy.body.errors).toContainEqual({
      path: 'remoteEngineUrl',
      message: 'remoteEngineUrl must not point at a loopback address (http.allow-loopback)',
    });
  });
});

describe('verify=true, with loopback allowed (npm start)', () => {
  const ENCRYPTION_KEY = randomBytes(32).toString('base64');
  const servers: net.Server[] = [];
  const listen = async (onConnection: (socket: net.Socket) => void) => {
    const server = net.createServer(onConnection);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  };
  beforeAll(async () => {
    // Fresh modules: the handlers above keep their settings (loopback refused) for their container's life.
    vi.resetModules();
    await useHandlersOn(
      'it_outbound_verify',
      `computational-governance-platform.assistant { encryption-key = "${ENCRYPTION_KEY}", provider-retries = 0 }
       computational-governance-platform.http { client-connect-timeout = "1s", client-read-timeout = "500ms" }`,
    );
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    await releaseHandlers();
  });

  it('says the same whether the port is closed, speaks something else or never answers: no port scanner', async () => {
    const llm = await import('../../functions/assistant/llm-config');
    const closed = await freePort();
    const garbage = await listen((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    const silent = await listen(() => undefined);
    const details = [];
    for (const port of [closed, garbage, silent]) {
      const body = {
        provider: 'hosted_llm',
        api_key: 'key-0123456789',
        endpoint: `http://127.0.0.1:${port}`,
        api_version: '2024-10-21',
        model: 'gpt-4o',
        deployment: 'd',
      };
      const response = await invoke(llm.saveLlmConfig, { method: 'POST', path: '/assistant/v1/llm/config', body, query: { verify: 'true' } });
      expect(response.body).toMatchObject({ status: 422, reason: 'unreachable' });
      details.push(response.body.detail.replace(String(port), 'PORT'));
    }
    expect(new Set(details)).toEqual(
      new Set(['The LLM configuration was not stored: the provider check failed. Could not get an HTTP answer from 127.0.0.1:PORT']),
    );
  });

  it('chat, remote engines and resolvers say the same for a closed port, a non-HTTP one, a connect timeout and a refused address', async () => {
    const closed = await freePort();
    const garbage = await listen((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    const filtered = await unacceptingPort();
    const lax = { connectMs: 1000, readMs: 500, addressPolicy: { allowLoopback: true, allowPrivateNetworks: false } };
    // `localhost` passes the check on save where loopback is allowed; here it is refused when connecting.
    const targets = [
      { base: `http://127.0.0.1:${closed}`, timeouts: lax },
      { base: `http://127.0.0.1:${garbage}`, timeouts: lax },
      { base: `http://127.0.0.1:${filtered.port}`, timeouts: lax },
      { base: `http://localhost:${closed}`, timeouts: { ...lax, addressPolicy: STRICT } },
    ];
    const llm = await import('../../functions/assistant/llm-config');
    const embedder = await import('../../functions/assistant/embedder-config');
    const chat = await import('../../functions/assistant/chat');
    const { RemoteEngine } = await import('#lib/governance/engines/remote/remote-engine');
    const { fetchPerimeterPage } = await import('#lib/platform/perimeter-resolver');
    const model = { provider: 'hosted_llm', api_key: 'key-0123456789', api_version: '2024-10-21', model: 'gpt-4o', deployment: 'd' };
    const seen: Record<string, Set<string>> = { chat: new Set(), engine: new Set(), resolver: new Set() };
    try {
      for (const { base, timeouts } of targets) {
        const anonymous = (text: string) => text.replaceAll(new URL(base).host, 'HOST');
        const entity = { id: 'p', version: 1, kind: 'policy', engine: 'remote', cueScript: null, requireConcrete: true, remoteEngineUrl: base } as const;
        const [[result]] = await new RemoteEngine(timeouts).evaluate([entity], [{ id: 'r', resourceType: 't', descriptor: {}, content: '{}' }]);
        seen.engine.add(anonymous(result.errors.join()));
        const perimeter = { resourceType: 't', url: base, path: '/resources', batchSize: 10, retries: 0 };
        const failure = await fetchPerimeterPage(perimeter, 'production', 0, timeouts).catch((error) => error);
        seen.resolver.add(anonymous(`${failure.message} / ${failure.reason}`));
        if (timeouts.addressPolicy === STRICT) continue; // the handlers' settings allow loopback
        for (const [handler, path] of [
          [llm.saveLlmConfig, 'llm'],
          [embedder.saveEmbedderConfig, 'embedder'],
        ] as const) {
          expect((await invoke(handler, { method: 'POST', path: `/assistant/v1/${path}/config`, body: { ...model, endpoint: base } })).status).toBeOneOf([
            200, 201,
          ]);
        }
        const answer = await invoke(chat.chat, { method: 'POST', path: '/assistant/v1/llm/chat', body: { query: 'hi' } });
        seen.chat.add(anonymous(`${answer.status} ${answer.body.detail}`));
      }
    } finally {
      filtered.close();
    }
    expect(seen.chat).toEqual(new Set(['502 Could not get an HTTP answer from HOST']));
    expect(seen.engine).toEqual(new Set(['The remote engine at HOST failed: Could not get an HTTP answer from HOST']));
    expect(seen.resolver).toEqual(
      new Set(['The perimeter resolver of t failed: Could not get an HTTP answer from HOST / The perimeter resolver of t could not be reached']),
    );
  });
});
