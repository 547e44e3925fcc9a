import { ApiError, problemText } from '#lib/api/api-error';
import type { EndpointCaller, EndpointCallOptions as CallOptions } from '#lib/api/endpoint-caller';
import type { Endpoint, EndpointAnswer as Answer } from '#lib/http/endpoint';
import { endpointRoute } from '#lib/http/endpoint-route';
import { type CliEnvironment, cliEnvironment } from '#lib/settings/environment';

import { UsageError } from './usage-error';

/** How `cgp` reaches the platform: `--server` / CGP_SERVER, and a bearer token or Basic credentials. */
export interface ApiAccess {
  readonly server?: string;
  readonly token?: string;
}

const DEFAULT_SERVER = 'http://localhost:3000';

/** A route as cgp's messages name it: under the governance API's root, as its documentation does. */
const shown = (route: string) => route.replace(/^\/v1\/computational-governance(?=\/)/, '');

/** The Authorization header: the token given (flag, else CGP_TOKEN) as Bearer, else Basic from CGP_USER and CGP_ACCESS_TOKEN. */
function authorization(access: ApiAccess, env: CliEnvironment): string | undefined {
  const token = access.token ?? env.token;
  if (token) return `Bearer ${token}`;
  if (env.user && env.accessToken) return `Basic ${Buffer.from(`${env.user}:${env.accessToken}`).toString('base64')}`;
  if (env.user || env.accessToken) throw new UsageError('Basic authentication needs both CGP_USER and CGP_ACCESS_TOKEN');
  return undefined;
}

/**
 * The query of a Link header's rel="next", if it names one: the next request is the same endpoint's
 * with that query (a target on another path is refused).
 */
function nextQuery(link: string | null, route: string): Record<string, string> | undefined {
  const target = link?.match(/<([^>]*)>\s*;\s*rel="?next"?/)?.[1];
  if (target === undefined) return undefined;
  const next = new URL(target, 'http://api.invalid');
  if (next.pathname !== new URL(route, 'http://api.invalid').pathname)
    throw new ApiError(200, `the next part of the answer is not on the same endpoint: ${target}`);
  return Object.fromEntries(next.searchParams);
}

/** The governance API of a running platform, each answer checked against its contract. */
export class ApiClient implements EndpointCaller {
  readonly server: string;
  private readonly authorization: string | undefined;

  constructor(access: ApiAccess, env: CliEnvironment = cliEnvironment()) {
    const server = access.server ?? env.server ?? DEFAULT_SERVER;
    if (!URL.canParse(server) || !/^https?:$/.test(new URL(server).protocol))
      throw new UsageError(`--server must be an http(s) URL, got ${JSON.stringify(server)}`);
    this.server = server.replace(/\/+$/, '');
    this.authorization = authorization(access, env);
  }

  /** Sends a call to `{server}{route}`; a 2xx answer as it came, any other as an ApiError naming its problem. */
  private async answer(method: string, route: string, accept: string, options: { body?: unknown; headers?: Record<string, string> }): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.server}${route}`, {
        method,
        headers: {
          accept,
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.authorization ? { authorization: this.authorization } : {}),
          ...options.headers,
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
    } catch (error) {
      throw new UsageError(
        `could not reach the platform at ${this.server}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`,
      );
    }
    if (response.ok) return response;
    const text = await response.text();
    let problem: unknown;
    try {
      problem = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ApiError(response.status, `${method} ${shown(route)} answered ${response.status} with a body that is not JSON`);
    }
    const hint = response.status === 401 ? ' (give a token: --token or CGP_TOKEN, or CGP_USER and CGP_ACCESS_TOKEN)' : '';
    throw new ApiError(response.status, `${method} ${shown(route)}: ${problemText(response.status, problem)}${hint}`);
  }

  /** A 2xx answer's status, headers and text (any other throws, as `answer` says). */
  private async send(method: string, route: string, accept: string, options: { body?: unknown; headers?: Record<string, string> }) {
    const response = await this.answer(method, route, accept, options);
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** Calls an endpoint by its contract; the answer's status and body, read by the contract's schema of that status. */
  async call<E extends Endpoint>(endpoint: E, options: CallOptions<E>): Promise<{ status: number; body: Answer<E> }> {
    const { method } = endpoint;
    const route = endpointRoute(endpoint.path, options.params, options.query);
    const { status, text } = await this.send(method, route, 'application/json', options);
    const schema = endpoint.responses[status]?.schema;
    if (!schema) throw new ApiError(status, `${method} ${shown(route)} answered ${status}, which its contract does not name`);
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ApiError(status, `${method} ${shown(route)} answered ${status} with a body that is not JSON`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ApiError(status, `${method} ${shown(route)} answered a body cgp does not understand: ${parsed.error.issues[0]?.message}`);
    return { status, body: parsed.data as Answer<E> };
  }

  /**
   * The bytes an endpoint answers as they came (a zip), with the answer's status and headers; `options.headers`
   * are sent (a Range). A status the contract does not name is refused, as `call` does.
   */
  async bytes<E extends Endpoint>(endpoint: E, options: CallOptions<E>): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
    const { method } = endpoint;
    const route = endpointRoute(endpoint.path, options.params, options.query);
    const response = await this.answer(method, route, endpoint.responses[200]?.mediaType ?? 'application/octet-stream', options);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!endpoint.responses[response.status])
      throw new ApiError(response.status, `${method} ${shown(route)} answered ${response.status}, which its contract does not name`);
    return { status: response.status, headers: response.headers, bytes };
  }

  /**
   * Every line of an NDJSON endpoint, each read by the contract's line schema, answer after answer:
   * an answer that is cut names the rest in its Link header (rel="next"), the same endpoint with
   * another query, which is followed.
   */
  async *lines<E extends Endpoint>(endpoint: E, options: CallOptions<E>): AsyncGenerator<Answer<E>> {
    const line = endpoint.responses[200]?.schema;
    if (!line) throw new Error(`${endpoint.operationId} has no 200 answer in its contract`);
    for (let query: object | undefined = options.query ?? {}; query !== undefined;) {
      const route = endpointRoute(endpoint.path, options.params, query);
      const { status, headers, text } = await this.send('GET', route, 'application/x-ndjson', {});
      for (const [index, item] of text.split('\n').entries()) {
        if (item === '') continue;
        let parsed;
        try {
          parsed = line.safeParse(JSON.parse(item));
        } catch {
          throw new ApiError(status, `GET ${shown(route)} answered a line that is not JSON (line ${index + 1})`);
        }
        if (!parsed.success)
          throw new ApiError(status, `GET ${shown(route)} answered a line cgp does not understand (line ${index + 1}): ${parsed.error.issues[0]?.message}`);
        yield parsed.data as Answer<E>;
      }
      query = nextQuery(headers.get('link'), route);
    }
  }

  /** Every item of a list endpoint (the query may hold filters), page after page of 100. */
  async list<E extends Endpoint>(endpoint: E, options: CallOptions<E>): Promise<ListItem<E>[]> {
    const items: ListItem<E>[] = [];
    for (let offset = 0; ; offset += 100) {
      const { body } = await this.call(endpoint, { ...options, query: { ...options.query, limit: 100, offset } } as CallOptions<E>);
      const page = body as { data: ListItem<E>[]; meta: { pagination: { total: number } } };
      items.push(...page.data);
      if (page.data.length === 0 || offset + 100 >= page.meta.pagination.total) return items;
    }
  }
}

/** An item of a list endpoint's page (`{ data: [...], meta: { pagination } }`). */
type ListItem<E extends Endpoint> = Answer<E> extends { data: (infer T)[] } ? T : never;
