import pRetry from 'p-retry';

import { logger } from '#lib/logging/logger';
import { backoffDelay } from '#lib/platform/backoff';
import { callPlatform, PlatformError } from '#lib/platform/platform-client';
import type { Settings } from '#lib/settings/index';

export interface PulledEnvironment {
  name: string;
  details: Record<string, unknown>;
}

/** The platform answered something that is not a list of environments. */
export class EnvironmentListError extends Error {
  override name = 'EnvironmentListError';
}

const FIRST_RETRY_MS = 200;
const LONGEST_RETRY_MS = 10_000;

/**
 * The platform's answer, read leniently: a list (or `{ data: [...] }` / `{ environments: [...] }`)
 * of names or of objects with a `name`.
 */
export function readEnvironmentList(body: unknown): PulledEnvironment[] {
  const list = Array.isArray(body)
    ? body
    : ((body as { data?: unknown; environments?: unknown } | null)?.data ?? (body as { environments?: unknown } | null)?.environments);
  if (!Array.isArray(list)) throw new EnvironmentListError('expected a list of environments (or { "data": [...] })');
  return list.map((item, index) => {
    if (typeof item === 'string' && item.trim()) return { name: item.trim(), details: {} };
    const name = (item as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && name.trim()) return { name: name.trim(), details: item as Record<string, unknown> };
    throw new EnvironmentListError(`entry ${index} has no "name"`);
  });
}

// Worth asking again: the platform was busy or unreachable. A refused secret or a bad answer is not.
const retryable = (error: unknown) =>
  !(error instanceof EnvironmentListError) && !(error instanceof PlatformError && error.status !== 429 && error.status < 500);

/**
 * GET {base-url}{environments-path} with the http-secret, retried up to
 * `environments-fetch-retries` times with exponential backoff and jitter.
 */
export async function fetchEnvironments(settings: Settings): Promise<PulledEnvironment[]> {
  const { environmentsPath, environmentsFetchRetries } = settings.platformServices.environments;
  return pRetry(
    async () => {
      const response = await callPlatform(settings, environmentsPath);
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        throw new EnvironmentListError('the answer is not JSON');
      }
      return readEnvironmentList(body);
    },
    {
      retries: environmentsFetchRetries,
      minTimeout: 0,
      maxTimeout: 0,
      shouldRetry: ({ error }) => retryable(error),
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (!retryable(error) || retriesLeft === 0) return;
        const retryInMs = backoffDelay(attemptNumber, FIRST_RETRY_MS, LONGEST_RETRY_MS);
        logger.warn({ attempt: attemptNumber, retriesLeft, retryInMs, reason: error.message }, 'fetching the environments failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, retryInMs));
      },
    },
  );
}
