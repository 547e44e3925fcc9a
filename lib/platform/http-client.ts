import type * as UndiciModule from 'undici';
import type { Agent, Response as UndiciResponse } from 'undici';

import { runtimeEnvironment } from '#lib/settings/environment';
import type { Settings } from '#lib/settings/index';

import { type AddressPolicy, forbiddenUrl, guardedConnector } from './address-policy';

/**
 * `http.client-connect-timeout` and `http.client-read-timeout`, in ms; 0 means no timeout. With
 * `addressPolicy` (URLs callers gave), the addresses the call may connect to are restricted and a
 * connect timeout is a connection failure like the others.
 */
export interface OutboundTimeouts {
  readonly connectMs: number;
  readonly readMs: number;
  readonly addressPolicy?: AddressPolicy;
  /** The longest answer body read (http.max-response-bytes); unset, DEFAULT_MAX_RESPONSE_BYTES. */
  readonly maxResponseBytes?: number;
}

/** 10 MiB: http.max-response-bytes unset. */
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export const timeoutsOf = (settings: Settings): OutboundTimeouts => ({
  connectMs: settings.http.clientConnectTimeout,
  readMs: settings.http.clientReadTimeout,
  maxResponseBytes: settings.http.maxResponseBytes,
});

/** Loopback is allowed locally (npm start, tests) and refused deployed, unless http.allow-loopback says otherwise. */
const addressPolicyOf = (settings: Settings): AddressPolicy => ({
  allowLoopback: settings.http.allowLoopback ?? !runtimeEnvironment().deployed,
  allowPrivateNetworks: settings.http.allowPrivateNetworks,
});

/** Why a URL a caller gives may not be called under the settings' address policy, or undefined. */
export const callableUrlProblem = (settings: Settings, url: string): string | undefined => forbiddenUrl(url, addressPolicyOf(settings));

/** For calls to URLs a caller gave (model endpoints, perimeter resolvers, remote engines): timeouts and the address policy. */
export const callerTargetTimeoutsOf = (settings: Settings): OutboundTimeouts => ({ ...timeoutsOf(settings), addressPolicy: addressPolicyOf(settings) });

/** An outbound call ran out of time: names the host and which timeout fired. */
export class OutboundTimeoutError extends Error {
  constructor(
    readonly host: string,
    readonly timeout: 'connect' | 'read',
    readonly afterMs: number,
    options?: ErrorOptions,
  ) {
    super(`${timeout === 'connect' ? 'Connecting to' : 'Reading from'} ${host} timed out after ${afterMs} ms (http.client-${timeout}-timeout)`, options);
    this.name = 'OutboundTimeoutError';
  }
}

/**
 * An outbound call got no HTTP answer at all: refused, reset, unresolvable, not speaking HTTP, a
 * TLS failure, an address it may not reach or, for a URL a caller gave, a connect timeout. The
 * message is the same for all of them, so that answers do not tell a caller what listens at an
 * address (a port scanner); `reason` says which, for the logs.
 */
export class OutboundConnectionError extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`Could not get an HTTP answer from ${host}`, options);
    this.name = 'OutboundConnectionError';
  }
}

/**
 * A connect timeout to a URL a caller gave: it reads like any other connection failure, but the
 * type tells those who retry that trying again would multiply the wait.
 */
export class OutboundConnectTimeoutError extends OutboundConnectionError {
  constructor(host: string, afterMs: number, options?: ErrorOptions) {
    super(host, `connect timeout after ${afterMs} ms (http.client-connect-timeout)`, options);
    this.name = 'OutboundConnectTimeoutError';
  }
}

/** An outbound call's answer was longer than http.max-response-bytes: it is not read further. */
export class OutboundTooLargeError extends Error {
  constructor(
    readonly host: string,
    readonly maxBytes: number,
  ) {
    super(`The answer of ${host} is longer than ${maxBytes} bytes (http.max-response-bytes)`);
    this.name = 'OutboundTooLargeError';
  }
}

type Undici = typeof UndiciModule;

let undici: Promise<Undici> | undefined;

/**
 * undici, loaded by the first outbound call: about a megabyte of code that a function making no
 * call (the deploy gate, evaluating with CUE) never compiles (docs/deployment.md, "Packages").
 */
const loadUndici = (): Promise<Undici> => (undici ??= import('undici'));

/** The response with its body read through a bound: past `maxBytes` (announced or counted) reading it fails with OutboundTooLargeError. */
function capped({ Response }: Undici, response: UndiciResponse, host: string, maxBytes: number): UndiciResponse {
  const announced = Number(response.headers.get('content-length') ?? Number.NaN);
  if (announced > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw new OutboundTooLargeError(host, maxBytes);
  }
  if (!response.body) return response;
  let read = 0;
  const bound = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      read += chunk.byteLength;
      if (read > maxBytes) controller.error(new OutboundTooLargeError(host, maxBytes));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(bound), { status: response.status, statusText: response.statusText, headers: response.headers });
}

const TIMEOUT_CODES: Record<string, 'connect' | 'read'> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'read',
  UND_ERR_BODY_TIMEOUT: 'read',
};

/** What is read of an error and of the errors it wraps (any of it may be missing). */
interface ErrorLink {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The error and its causes, outermost first, at most 8. */
function* causes(error: unknown): Generator<ErrorLink> {
  for (let current: unknown = error, depth = 0; current && depth < 8; depth++) {
    const link: ErrorLink = Object(current);
    yield link;
    current = link.cause;
  }
}

/**
 * The typed error behind a failed outbound call, wherever it surfaced (fetch itself, reading the
 * body, or a client library wrapping either), or undefined when it was not a transport failure.
 */
export function outboundErrorOf(error: unknown, host: string, timeouts: OutboundTimeouts): OutboundTimeoutError | OutboundConnectionError | undefined {
  for (const cause of causes(error)) {
    if (cause instanceof OutboundTimeoutError || cause instanceof OutboundConnectionError) return cause;
    const which = typeof cause.code === 'string' ? TIMEOUT_CODES[cause.code] : undefined;
    // A filtered port must not read otherwise than a closed one when the caller chose the address.
    if (which === 'connect' && timeouts.addressPolicy) return new OutboundConnectTimeoutError(host, timeouts.connectMs, { cause: error });
    if (which) return new OutboundTimeoutError(host, which, which === 'connect' ? timeouts.connectMs : timeouts.readMs, { cause: error });
  }
  for (const cause of causes(error)) {
    if (typeof cause.code === 'string' && /^(E[A-Z]+|UND_ERR_SOCKET)$/.test(cause.code)) {
      return new OutboundConnectionError(host, `${cause.code}: ${cause.message}`, { cause: error });
    }
  }
  return undefined;
}

const agents = new Map<string, Agent>();

function agentFor({ Agent, buildConnector }: Undici, timeouts: OutboundTimeouts): Agent {
  const policy = timeouts.addressPolicy;
  const key = `${timeouts.connectMs}/${timeouts.readMs}/${policy ? `${policy.allowLoopback}/${policy.allowPrivateNetworks}` : 'any'}`;
  let agent = agents.get(key);
  if (!agent) {
    // Every connection is checked, redirects included, on the address it is made to.
    const connect = policy ? guardedConnector(buildConnector, policy, { timeout: timeouts.connectMs }) : { timeout: timeouts.connectMs };
    agent = new Agent({ connect, headersTimeout: timeouts.readMs, bodyTimeout: timeouts.readMs });
    agents.set(key, agent);
  }
  return agent;
}

export type Fetch = typeof globalThis.fetch;

/**
 * The fetch every outbound call uses: the configured connect and read timeouts (0 = none), and
 * transport failures turned into OutboundTimeoutError / OutboundConnectionError naming the host.
 */
export function outboundFetch(timeouts: OutboundTimeouts): Fetch {
  return (async (input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const loaded = await loadUndici();
    let response: UndiciResponse;
    try {
      response = await loaded.fetch(input as never, { ...(init as object), dispatcher: agentFor(loaded, timeouts) } as never);
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error;
      // fetch rejects only when no response came: anything that is not a timeout is unreachability.
      const cause = (error as Error & { cause?: Error }).cause;
      throw outboundErrorOf(error, url.host, timeouts) ?? new OutboundConnectionError(url.host, cause?.message ?? (error as Error).message, { cause: error });
    }
    return capped(loaded, response, url.host, timeouts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  }) as unknown as Fetch;
}
