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

  /** Calls `{server}/v1/computational-governance{route}`; the answer's status and body, read by `schema`. */
  async call<T extends z.ZodType>(
    method: string,
    route: string,
    schema: T,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: z.output<T> }> {
    let response: Response;
    try {
      response = await fetch(`${this.server}${API}${route}`, {
        method,
        headers: {
          accept: 'application/json',
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
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ApiError(response.status, `${method} ${route} answered ${response.status} with a body that is not JSON`);
    }
    if (!response.ok) {
      const hint = response.status === 401 ? ' (give a token: --token or CGP_TOKEN, or CGP_USER and CGP_ACCESS_TOKEN)' : '';
      throw new ApiError(response.status, `${method} ${route}: ${problemText(response.status, body)}${hint}`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ApiError(response.status, `${method} ${route} answered a body cgp does not understand: ${parsed.error.issues[0]?.message}`);
    return { status: response.status, body: parsed.data };
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
