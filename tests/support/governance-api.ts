import { inject } from 'vitest';

import { authorized } from './tokens';

/** A call to the governance API of the e2e services, authenticated as a technical client; an answer that is not 2xx throws with its body. */
export async function governanceApi<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${inject('baseUrl')}/v1/computational-governance${route}`, {
    method,
    headers: await authorized({ 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
