import { inject } from 'vitest';

import { authorized } from './tokens';

/** A call to the e2e services (`route` from the root: /v1/..., /assistant/...) as a technical client; an answer that is not 2xx throws with its body. */
export async function serviceCall<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${inject('baseUrl')}${route}`, {
    method,
    headers: await authorized(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** serviceCall under /v1/computational-governance. */
export const governanceApi = <T>(method: string, route: string, body?: unknown) => serviceCall<T>(method, `/v1/computational-governance${route}`, body);
