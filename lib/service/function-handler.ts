import middy from '@middy/core';
import type { Context } from 'aws-lambda';

import { serviceSettings } from '#lib/http/composition';
import { metricsMiddleware } from '#lib/observability/metrics';
import { tracingMiddleware } from '#lib/observability/tracing';

/**
 * Builds the handler of a function that is not an HTTP endpoint (a schedule, a queue worker): the
 * same frame as lib/http/handler.ts gives endpoints: its trace's handler subsegment, its metrics
 * flushed after every invocation.
 * The handler receives its event and context as given (middy would make a missing one `{}`, and a
 * schedule run by hand, without a Lambda context, has no time limit).
 */
export function functionHandler<H extends (event: never, context: never) => Promise<unknown>>(handle: H): H {
  const run = handle as unknown as (event: unknown, context: unknown) => Promise<unknown>;
  // The function keeps its own time (the worker hands on, the schedules stop claiming): no early timeout.
  const chain = middy(async (call: { event: unknown; context: unknown }) => run(call.event, call.context), { timeoutEarlyInMillis: 0 })
    .use(tracingMiddleware(({ context }) => ({ requestId: (context as Partial<Context> | undefined)?.awsRequestId })))
    .use(metricsMiddleware(serviceSettings));
  return ((event: unknown, context: unknown) => chain({ event, context }, (context ?? {}) as never)) as unknown as H;
}
