import type { Endpoint, EndpointAnswer, EndpointInputs } from '#lib/http/endpoint';
import { endpointRoute } from '#lib/http/endpoint-route';

import { authorizationOf, type Credentials, readCredentials } from '../auth/session';
import type { Route } from './route';

export interface FieldError {
  path: string;
  message: string;
  /** Where in the field's text (1-based): a CUE script's compile error. */
  line?: number;
  column?: number;
}

/** Every failed call: the API's problem document (RFC 9457), or one made up for a network failure. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors: readonly FieldError[] = [],
    /** A 401's WWW-Authenticate: the schemes the API accepts (Basic only when it is enabled). */
    readonly challenge = '',
  ) {
    super(detail);
    this.name = 'ApiProblem';
  }

  /** The messages of the field at `path` (`name`, `query.text`, `owner.email`). */
  errorsOf(path: string): string[] {
    return this.errors.filter((error) => error.path === path).map((error) => error.message);
  }
}

/** The API is served beside the console: /console's parent (also under a base path). */
const apiBase = () => location.pathname.replace(/\/console\/?$/, '');

let unauthorized: (problem: ApiProblem) => void = () => undefined;

/** Who is told when the API refuses the tab's credentials (401): the app, which returns to sign-in. */
export function onUnauthorized(handler: (problem: ApiProblem) => void): void {
  unauthorized = handler;
}

export type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  readonly signal?: AbortSignal;
  /** Other credentials than the tab's (signing in checks them), or none; a 401 then does not sign out. */
  readonly credentials?: Credentials | 'none';
  readonly headers?: Record<string, string>;
}

async function problemOf(response: Response): Promise<ApiProblem> {
  const fallback = `${response.status} ${response.statusText}`.trim();
  const challenge = response.headers.get('www-authenticate') ?? '';
  try {
    const problem = (await response.json()) as Partial<{ title: string; detail: string; errors: FieldError[] }>;
    return new ApiProblem(response.status, problem.title ?? fallback, problem.detail ?? fallback, problem.errors ?? [], challenge);
  } catch {
    return new ApiProblem(response.status, fallback, `The API answered ${fallback}`);
  }
}

/**
 * One request to the API with the tab's credentials, by its route (console/api/routes.ts: the method
 * and path of its contract, which types the inputs); its answer when it succeeded (of `accept`), or an ApiProblem.
 */
export async function request<E extends Endpoint>(
  route: Route<E>,
  options: EndpointInputs<E> & RequestOptions,
  accept = 'application/json',
): Promise<Response> {
  const { method } = route;
  const credentials = options.credentials ?? readCredentials();
  // An empty field of a form is no filter.
  const query = Object.fromEntries(Object.entries(options.query ?? {}).filter(([, value]) => value !== ''));
  const url = `${apiBase()}${endpointRoute(route.path, options.params, query)}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      signal: options.signal,
      headers: {
        accept,
        ...(credentials && credentials !== 'none' ? { authorization: authorizationOf(credentials) } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiProblem(0, 'Unreachable', `The API cannot be reached: ${(error as Error).message}`);
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    // The first 401 signs the tab out and says why. A call its page gave up on (the sign-out aborts the
    // page's other calls, whose bodies then cannot be read) or a later 401 of the same tab says nothing more.
    if (options.signal?.aborted) throw options.signal.reason;
    if (response.status === 401 && !options.credentials && readCredentials() !== undefined) unauthorized(problem);
    throw problem;
  }
  return response;
}

/** One call to the API (`request`): its parsed JSON answer (the contract types it), or an ApiProblem. */
export async function call<E extends Endpoint>(route: Route<E>, options: EndpointInputs<E> & RequestOptions): Promise<EndpointAnswer<E>> {
  const response = await request(route, options);
  return (response.status === 204 ? undefined : await response.json()) as EndpointAnswer<E>;
}
