import type { Endpoint, HttpRequest, HttpResult } from '#lib/http/endpoint';
import { type HandlerOptions, type HttpHandler, httpHandler } from '#lib/http/handler';

import { governance } from './composition';
import type { GovernanceContext } from './context';

/** The handler of a governance endpoint: the shared chain of lib/http/handler.ts, with governance put together for the call. */
export function governanceHandler<E extends Endpoint>(
  endpoint: E,
  handle: (request: HttpRequest<E>, ctx: GovernanceContext) => Promise<HttpResult>,
  options?: HandlerOptions,
): HttpHandler {
  return httpHandler(endpoint, async (request) => handle(request, await governance()), options);
}
