import { Agent, fetch as undiciFetch } from 'undici';
import type { Settings } from '../settings';

/** `http.client-connect-timeout` and `http.client-read-timeout`, in ms; 0 means no timeout. */
export interface OutboundTimeouts {
  readonly connectMs: number;
  readonly readMs: number;
}

export const timeoutsOf = (settings: Settings): OutboundTimeouts => ({
  connectMs: settings.http.clientConnectTimeout,
  readMs: settings.http.clientReadTimeout,
});

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

/** An outbound call could not reach its host at all (refused, reset, DNS). */
export class OutboundConnectionError extends Error {
  constructor(
    readonly host: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`Could not reach ${host}: ${reason}`, options);
    this.name = 'OutboundConnectionError';
  }
}

const TIMEOUT_CODES: Record<string, 'connect' | 'read'> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'read',
  UND_ERR_BODY_TIMEOUT: 'read',
};

function* causes(error: unknown): Generator<any> {
  for (let current: any = error, depth = 0; current && depth < 8; current = current.cause, depth++) yield current;
}

/**
 * The typed error behind a failed outbound call, wherever it surfaced (fetch itself, reading the
 * body, or a client library wrapping either), or undefined when it was not a transport failure.
 */
export function outboundErrorOf(error: unknown, host: string, timeouts: OutboundTimeouts): OutboundTimeoutError | OutboundConnectionError | undefined {
  for (const cause of causes(error)) {
    if (cause instanceof OutboundTimeoutError || cause instanceof OutboundConnectionError) return cause;
    const which = TIMEOUT_CODES[cause?.code];
    if (which) return new OutboundTimeoutError(host, which, which === 'connect' ? timeouts.connectMs : timeouts.readMs, { cause: error });
  }
  for (const cause of causes(error)) {
    if (typeof cause?.code === 'string' && /^(E[A-Z]+|UND_ERR_SOCKET)$/.test(cause.code)) {
      return new OutboundConnectionError(host, cause.code, { cause: error });
    }
  }
  return undefined;
}

const agents = new Map<string, Agent>();

function agentFor(timeouts: OutboundTimeouts): Agent {
  const key = `${timeouts.connectMs}/${timeouts.readMs}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { timeout: timeouts.connectMs }, headersTimeout: timeouts.readMs, bodyTimeout: timeouts.readMs });
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
  const dispatcher = agentFor(timeouts);
  return (async (input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    try {
      return await undiciFetch(input as never, { ...(init as object), dispatcher } as never);
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error;
      // fetch rejects only when no response came: anything that is not a timeout is unreachability.
      const cause = (error as Error & { cause?: Error }).cause;
      throw outboundErrorOf(error, url.host, timeouts) ?? new OutboundConnectionError(url.host, cause?.message ?? (error as Error).message, { cause: error });
    }
  }) as unknown as Fetch;
}
