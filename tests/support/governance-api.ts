import { inject } from 'vitest';

import type { EntityRepresentation } from '#lib/governance/policies/entity';

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

/** Registers a resource type whose descriptors name their id (`id`) and display name (`name`); its perimeter is never resolved. */
export const registerResourceType = (name: string) =>
  governanceApi('POST', '/resource-types', {
    name,
    configuration: { resourceName: 'id', resourceDisplayName: ['name'] },
    resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' },
  });

/** A resource type registered, and one CUE policy of it created and published in `environment`: the policy as created. */
export async function publishedCuePolicy(type: string, name: string, cueScript: string, environment = 'development'): Promise<EntityRepresentation> {
  await registerResourceType(type);
  const policy = await governanceApi<EntityRepresentation>('POST', '/policies', { name, resourceType: type, environment, engine: 'cue', cueScript });
  await governanceApi('POST', `/policies/${policy.id}/publish`);
  return policy;
}
