import { performance } from 'node:perf_hooks';

import pRetry from 'p-retry';
import { z } from 'zod';

import { logger } from '#lib/logging/logger';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';

import { backoffDelay } from './backoff';
import { outboundFetch, OutboundTimeoutError, type OutboundTimeouts } from './http-client';

/** Where and how a resource type's resources are listed. */
export interface Perimeter {
  readonly resourceType: string;
  readonly url: string;
  readonly path: string;
  readonly batchSize: number;
  /** Retries of a call that failed in a way worth retrying (evaluation.resolver-retries). */
  readonly retries: number;
}

const FIRST_RETRY_MS = 200;
const LONGEST_RETRY_MS = 5_000;

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

/** One page of the perimeter, and the resolver's count of the whole perimeter when it gives one. */
export interface PerimeterPage {
  resources: ResolvedResource[];
  total?: number;
}

/** The perimeter resolver failed: unreachable, timed out, non-2xx or an answer of another shape. */
export class ResolverError extends Error {
  constructor(
    message: string,
    /** What failed, naming no address (the message, for the logs, may): shown on a report that waits on a retry. */
    readonly reason: string = message,
    readonly timeout = false,
    /** Worth asking again: unreachable, timed out, 429 or 5xx. */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ResolverError';
  }
}

async function fetchOnce(perimeter: Perimeter, timeouts: OutboundTimeouts, query: Record<string, string>, signal?: AbortSignal): Promise<PerimeterPage> {
  const url = new URL(`${perimeter.url.replace(/\/+$/, '')}${perimeter.path}`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  let response: Response;
  let text: string;
  try {
    response = await outboundFetch(timeouts)(url, { headers: { accept: 'application/json' }, signal });
    text = await response.text();
  } catch (error) {
    const timeout = error instanceof OutboundTimeoutError;
    const reason = `The perimeter resolver of ${perimeter.resourceType} ${timeout ? 'did not answer in time' : 'could not be reached'}`;
    throw new ResolverError(`The perimeter resolver of ${perimeter.resourceType} failed: ${(error as Error).message}`, reason, timeout, !signal?.aborted);
  }
  if (!response.ok) {
    const retryable = response.status === 429 || response.status >= 500;
    const reason = `The perimeter resolver of ${perimeter.resourceType} answered ${response.status}`;
    throw new ResolverError(`${reason} to ${url.origin}${url.pathname}`, reason, false, retryable);
  }
  let parsed: ReturnType<typeof page.safeParse> | undefined;
  try {
    parsed = page.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success)
    throw new ResolverError(`The perimeter resolver of ${perimeter.resourceType} answered something that is not { resources: [{ id, content }], page }`);
  return { resources: parsed.data.resources, total: parsed.data.page?.total ?? undefined };
}

/** A failed call that will be tried again: what failed (naming no address), which attempt of how many, and when the next one starts. */
export interface ResolverRetry {
  reason: string;
  attempt: number;
  attempts: number;
  nextTryAt: Date;
}

export type ResolverRetryListener = (retry: ResolverRetry) => Promise<void>;

/** A resolver call, retried `perimeter.retries` times with exponential backoff when it failed in a way worth retrying. */
function fetchPage(
  perimeter: Perimeter,
  timeouts: OutboundTimeouts,
  query: Record<string, string>,
  signal?: AbortSignal,
  onRetry?: ResolverRetryListener,
): Promise<PerimeterPage> {
  return pRetry(() => fetchOnce(perimeter, timeouts, query, signal), {
    retries: perimeter.retries,
    minTimeout: 0,
    maxTimeout: 0,
    signal,
    shouldRetry: ({ error }) => error instanceof ResolverError && error.retryable,
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      if (!(error instanceof ResolverError && error.retryable) || retriesLeft === 0) return;
      const retryInMs = backoffDelay(attemptNumber, FIRST_RETRY_MS, LONGEST_RETRY_MS);
      logger.warn(
        { resourceType: perimeter.resourceType, query, attempt: attemptNumber, retriesLeft, retryInMs, reason: error.message },
        'a perimeter resolver call failed; retrying',
      );
      await onRetry?.({ reason: error.reason, attempt: attemptNumber, attempts: perimeter.retries + 1, nextTryAt: new Date(Date.now() + retryInMs) }).catch(
        (failure) => logger.warn({ err: failure }, 'could not record that a perimeter resolver call is being retried'),
      );
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    },
  });
}

/** The page of the perimeter of the environment that starts at `offset` (`limit` = the type's batch size), its latency (retries included) recorded. */
export async function fetchPerimeterPage(
  perimeter: Perimeter,
  environment: string,
  offset: number,
  timeouts: OutboundTimeouts,
  signal?: AbortSignal,
  onRetry?: ResolverRetryListener,
): Promise<PerimeterPage> {
  const started = performance.now();
  const page = await fetchPage(
    perimeter,
    timeouts,
    { environment, 'resource-types': perimeter.resourceType, offset: String(offset), limit: String(perimeter.batchSize) },
    signal,
    onRetry,
  );
  recordMetric('ResolverPages', MetricUnit.Count, 1, { environment });
  recordMetric('ResolverPageLatency', MetricUnit.Milliseconds, performance.now() - started, { environment });
  return page;
}

/** Every resource of the type in the environment, a page (`batch-size`) at a time, until a short page. */
export async function* resolvePerimeter(
  perimeter: Perimeter,
  environment: string,
  timeouts: OutboundTimeouts,
  signal?: AbortSignal,
): AsyncGenerator<ResolvedResource[]> {
  for (let offset = 0; ; offset += perimeter.batchSize) {
    const { resources } = await fetchPerimeterPage(perimeter, environment, offset, timeouts, signal);
    if (resources.length > 0) yield resources;
    if (resources.length < perimeter.batchSize) return;
  }
}

/** The deployed version of one resource, or undefined when none is deployed. */
export async function resolveDeployed(
  perimeter: Perimeter,
  environment: string,
  id: string,
  timeouts: OutboundTimeouts,
  signal?: AbortSignal,
): Promise<ResolvedResource | undefined> {
  const { resources } = await fetchPage(perimeter, timeouts, { environment, 'resource-types': perimeter.resourceType, offset: '0', limit: '1', id }, signal);
  return resources.find((resource) => resource.id === id);
}
