import { z } from 'zod';

import { type CliEnvironment, cliEnvironment } from '#lib/settings/environment';

import { UsageError } from './usage-error';

/** How `cgp` reaches the platform: `--server` / CGP_SERVER, and a bearer token or Basic credentials. */
export interface ApiAccess {
  readonly server?: string;
  readonly token?: string;
}

/** The platform answered with a problem (4xx, 5xx): its status, and the problem's words. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_SERVER = 'http://localhost:3000';
const API = '/v1/computational-governance';

/** The Authorization header: the token given (flag, else CGP_TOKEN) as Bearer, else Basic from CGP_USER and CGP_ACCESS_TOKEN. */
function authorization(access: ApiAccess, env: CliEnvironment): string | undefined {
  const token = access.token ?? env.token;
  if (token) return `Bearer ${token}`;
  if (env.user && env.accessToken) return `Basic ${Buffer.from(`${env.user}:${env.accessToken}`).toString('base64')}`;
  if (env.user || env.accessToken) throw new UsageError('Basic authentication needs both CGP_USER and CGP_ACCESS_TOKEN');
  return undefined;
}

/** A problem+json body in one line: its detail, and the fields it names. */
function problemText(status: number, body: unknown): string {
  const problem = (body ?? {}) as { title?: string; detail?: string; errors?: Array<{ path: string; message: string }> };
  const fields = (problem.errors ?? []).map((error) => `${error.path}: ${error.message}`).join('; ');
  return `${status} ${problem.title ?? ''}${problem.detail ? `: ${problem.detail}` : ''}${fields ? ` (${fields})` : ''}`.trim();
}

/** The route (under the API's root) of a Link header's rel="next", if it names one. */
function nextRoute(link: string | null): string | undefined {
  const target = link?.match(/<([^>]*)>\s*;\s*rel="?next"?/)?.[1];
  if (target === undefined) return undefined;
  if (!target.startsWith(`${API}/`)) throw new ApiError(200, `the next part of the answer is not on the API: ${target}`);
  return target.slice(API.length);
}

/** The governance API of a running platform, each answer checked against its contract. */
export class ApiClient {
  readonly server: string;
  private readonly authorization: string | undefined;

  constructor(access: ApiAccess, env: CliEnvironment = cliEnvironment()) {
    const server = access.server ?? env.server ?? DEFAULT_SERVER;
    if (!URL.canParse(server) || !/^https?:$/.test(new URL(server).protocol))
      throw new UsageError(`--server must be an http(s) URL, got ${JSON.stringify(server)}`);
    this.server = server.replace(/\/+$/, '');
    this.authorization = authorization(access, env);
  }

  /** Sends a call to `{server}/v1/computational-governance{route}`; a 2xx answer as it came, any other as an ApiError naming its problem. */
  private async send(method: string, route: string, accept: string, options: { body?: unknown; headers?: Record<string, string> }) {
    let response: Response;
    try {
      response = await fetch(`${this.server}${API}${route}`, {
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
    const text = await response.text();
    if (response.ok) return { status: response.status, headers: response.headers, text };
    let problem: unknown;
    try {
      problem = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ApiError(response.status, `${method} ${route} answered ${response.status} with a body that is not JSON`);
    }
    const hint = response.status === 401 ? ' (give a token: --token or CGP_TOKEN, or CGP_USER and CGP_ACCESS_TOKEN)' : '';
    throw new ApiError(response.status, `${method} ${route}: ${problemText(response.status, problem)}${hint}`);
  }

  /** Calls `{server}/v1/computational-governance{route}`; the answer's status and body, read by `schema`. */
  async call<T extends z.ZodType>(
    method: string,
    route: string,
    schema: T,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: z.output<T> }> {
    const { status, text } = await this.send(method, route, 'application/json', options);
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ApiError(status, `${method} ${route} answered ${status} with a body that is not JSON`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ApiError(status, `${method} ${route} answered a body cgp does not understand: ${parsed.error.issues[0]?.message}`);
    return { status, body: parsed.data };
  }

  /**
   * Every line of an NDJSON endpoint, each read by `line`, answer after answer: an answer that is
   * cut names the rest in its Link header (rel="next"), which is followed.
   */
  async *lines<T extends z.ZodType>(route: string, line: T): AsyncGenerator<z.output<T>> {
    for (let next: string | undefined = route; next !== undefined;) {
      const { status, headers, text } = await this.send('GET', next, 'application/x-ndjson', {});
      for (const [index, item] of text.split('\n').entries()) {
        if (item === '') continue;
        let parsed;
        try {
          parsed = line.safeParse(JSON.parse(item));
        } catch {
          throw new ApiError(status, `GET ${next} answered a line that is not JSON (line ${index + 1})`);
        }
        if (!parsed.success)
          throw new ApiError(status, `GET ${next} answered a line cgp does not understand (line ${index + 1}): ${parsed.error.issues[0]?.message}`);
        yield parsed.data;
      }
      next = nextRoute(headers.get('link'));
    }
  }

  /** Every item of a list endpoint (`route` may hold filters), page after page of 100. */
  async list<T extends z.ZodType>(route: string, item: T): Promise<Array<z.output<T>>> {
    const page = z.object({ data: z.array(item), meta: z.object({ pagination: z.object({ total: z.number().int() }) }) });
    const items: Array<z.output<T>> = [];
    const separator = route.includes('?') ? '&' : '?';
    for (let offset = 0; ; offset += 100) {
      const { body } = await this.call('GET', `${route}${separator}limit=100&offset=${offset}`, page);
      items.push(...body.data);
      if (body.data.length === 0 || offset + 100 >= body.meta.pagination.total) return items;
    }
  }
}
