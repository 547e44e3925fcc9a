import { z } from 'zod';
import { outboundFetch, OutboundTimeoutError, type OutboundTimeouts } from './http-client';

/** Where and how a resource type's resources are listed. */
export interface Perimeter {
  readonly resourceType: string;
  readonly url: string;
  readonly path: string;
  readonly batchSize: number;
}

const page = z.object({
  resources: z.array(
    z.object({
      id: z.union([z.string(), z.number()]).transform(String),
      displayName: z.string().nullish(),
      version: z.union([z.string(), z.number()]).transform(String).nullish(),
      content: z.string(),
    }),
  ),
  page: z.object({ offset: z.number(), limit: z.number(), total: z.number().nullish() }).partial().optional(),
});

export type ResolvedResource = z.output<typeof page>['resources'][number];

/** The perimeter resolver failed: unreachable, timed out, non-2xx or an answer of another shape. */
export class ResolverError extends Error {
  constructor(
    message: string,
    readonly timeout = false,
  ) {
    super(message);
    this.name = 'ResolverError';
  }
}

async function fetchPage(perimeter: Perimeter, timeouts: OutboundTimeouts, query: Record<string, string>, signal?: AbortSignal) {
  const url = new URL(`${perimeter.url.replace(/\/+$/, '')}${perimeter.path}`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  let response: Response;
  let text: string;
  try {
    response = await outboundFetch(timeouts)(url, { headers: { accept: 'application/json' }, signal });
    text = await response.text();
  } catch (error) {
    throw new ResolverError(`The perimeter resolver of ${perimeter.resourceType} failed: ${(error as Error).message}`, error instanceof OutboundTimeoutError);
  }
  if (!response.ok) throw new ResolverError(`The perimeter resolver of ${perimeter.resourceType} answered ${response.status} to ${url.origin}${url.pathname}`);
  let parsed;
  try {
    parsed = page.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new ResolverError(`The perimeter resolver of ${perimeter.resourceType} answered something that is not { resources: [{ id, content }], page }`);
  return parsed.data.resources;
}

/** Every resource of the type in the environment, a page (`batch-size`) at a time, until a short page. */
export async function* resolvePerimeter(perimeter: Perimeter, environment: string, timeouts: OutboundTimeouts, signal?: AbortSignal): AsyncGenerator<ResolvedResource[]> {
  for (let offset = 0; ; offset += perimeter.batchSize) {
    const resources = await fetchPage(perimeter, timeouts, { environment, 'resource-types': perimeter.resourceType, offset: String(offset), limit: String(perimeter.batchSize) }, signal);
    if (resources.length > 0) yield resources;
    if (resources.length < perimeter.batchSize) return;
  }
}

/** The deployed version of one resource, or undefined when none is deployed. */
export async function resolveDeployed(perimeter: Perimeter, environment: string, id: string, timeouts: OutboundTimeouts, signal?: AbortSignal): Promise<ResolvedResource | undefined> {
  const resources = await fetchPage(perimeter, timeouts, { environment, 'resource-types': perimeter.resourceType, offset: '0', limit: '1', id }, signal);
  return resources.find((resource) => resource.id === id);
}
