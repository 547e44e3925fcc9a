import type { Settings } from '#lib/settings/index';

import { outboundFetch, timeoutsOf } from './http-client';

/** The platform answered, but not with success. */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    detail: string,
  ) {
    super(`The platform answered ${status} to ${url}${detail ? `: ${detail}` : ''}`);
    this.name = 'PlatformError';
  }
}

/**
 * A call to the platform services: `{base-url}{path}` with `Authorization: Bearer <http-secret>`
 * (the contract's table), the configured timeouts, and a PlatformError for a non-2xx answer.
 * Transport failures are OutboundTimeoutError / OutboundConnectionError.
 */
export async function callPlatform(
  settings: Settings,
  path: string,
  init: { method?: string; body?: unknown; url?: string; secret?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  // The events backend and the notification service have URLs of their own (and the latter its own secret).
  const url = init.url ?? `${settings.platformServices.baseUrl.replace(/\/+$/, '')}${path}`;
  const secret = init.url ? init.secret : settings.platformServices.httpSecret;
  const response = await outboundFetch(timeoutsOf(settings))(url, {
    method: init.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...init.headers,
      ...(secret ? { authorization: `Bearer ${secret}` } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!response.ok) {
    const text = (await response.text().catch(() => '')).slice(0, 300);
    throw new PlatformError(response.status, url, secret ? text.split(secret).join('[REDACTED]') : text);
  }
  return response;
}
