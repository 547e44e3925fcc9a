import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { MiddlewareObj, Request } from '@middy/core';

import { runtimeEnvironment } from '#lib/settings/environment';

import { SERVICE_NAME } from './service-name';

// X-Ray traces through Powertools Tracer. A function's trace starts at Lambda's own segment
// (serverless.yml turns active tracing on); the factory of every function (lib/http/handler.ts,
// lib/service/function-handler.ts) opens the handler's subsegment through Powertools' middy
// middleware, and `traced` adds one below it for a piece of work: each database query and
// transaction, each engine's run. Outbound HTTP (resolver, remote engine, platform, provider) and
// the AWS clients are traced by Powertools itself (fetch and undici calls, captureAWSv3Client).
//
// Nothing of a descriptor or a secret enters a trace: no response, no error text (a thrown error
// only flags its subsegment), no query text or parameters; outbound calls are recorded by host and
// path, without their query string or headers. The annotations are the request id and the operation.
//
// The X-Ray SDK under Powertools follows every asynchronous step of the process once it is loaded,
// so it is loaded only where traces are sent: in AWS Lambda, when this module is. Under npm start,
// serverless offline, the `cgp` command and the tests nothing is loaded and `traced` runs its work as it is.

/**
 * The tracer, where traces are sent; loaded when the module is (a Lambda's init), as X-Ray's SDK
 * expects, so that every invocation runs inside its context.
 */
const tracer: Tracer | undefined = runtimeEnvironment().traced
  ? await import('@aws-lambda-powertools/tracer').then(({ Tracer }) => {
      const made = new Tracer({ serviceName: SERVICE_NAME });
      return made.isTracingEnabled() ? made : undefined;
    })
  : undefined;

const capture: MiddlewareObj | undefined = tracer
  ? await import('@aws-lambda-powertools/tracer/middleware').then(
      ({ captureLambdaHandler }) => captureLambdaHandler(tracer, { captureResponse: false }) as MiddlewareObj,
    )
  : undefined;

/** Whether this process traces (the tracer is loaded and on). */
export const isTracing = (): boolean => tracer !== undefined;

/** A subsegment's annotations: indexed by X-Ray, so only short identifiers (never content). */
export type TraceAnnotations = Readonly<Record<string, string | undefined>>;

interface SubsegmentLike {
  /** How many of its subsegments are open. */
  readonly counter: number;
  addAnnotation(key: string, value: string): void;
  addFaultFlag(): void;
  addErrorFlag(): void;
  close(): void;
  flush(): void;
}

function annotate(segment: SubsegmentLike | undefined, annotations: TraceAnnotations): void {
  for (const [key, value] of Object.entries(annotations)) if (value) segment?.addAnnotation(key, value);
}

/**
 * Runs `work` in a subsegment `name` of the trace (in a Lambda that traces; as it is elsewhere).
 * A failure flags the subsegment as a fault, without its text.
 */
export async function traced<T>(name: string, work: () => Promise<T>, annotations: TraceAnnotations = {}): Promise<T> {
  const active = tracer;
  if (!active) return work();
  return active.provider.captureAsyncFunc(name, async (given) => {
    const subsegment = given as SubsegmentLike | undefined;
    annotate(subsegment, annotations);
    try {
      return await work();
    } catch (error) {
      subsegment?.addFaultFlag();
      throw error;
    } finally {
      subsegment?.close();
    }
  }) as Promise<T>;
}

/** An AWS SDK v3 client whose calls are traced (in a Lambda that traces; the client itself elsewhere). */
export function tracedAwsClient<C>(client: C): C {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/** The status of an HTTP answer, when the response is one. */
function statusOf(response: unknown): number | undefined {
  const status = (response as { statusCode?: unknown } | null | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * The middy middleware of every function: where traces are sent, opens the handler's subsegment
 * through Powertools' middleware (captureLambdaHandler, without the response). When the invocation
 * ends, annotates it with `annotationsOf` the request (by then the inner middlewares have given it
 * its request id) and flags it by the outcome: a 5xx answer, or an error thrown without an answer,
 * as a fault; a 4xx answer as an error. The outermost middleware of a function, so that the
 * settings read on a cold start (SSM) are traced too.
 */
export function tracingMiddleware<R extends Request>(annotationsOf: (request: R) => TraceAnnotations): MiddlewareObj {
  /** The handler's subsegment of each invocation in flight. */
  const segments = new WeakMap<object, SubsegmentLike>();
  const finish = async (request: R) => {
    const segment = segments.get(request);
    if (!capture || !segment) return;
    annotate(segment, annotationsOf(request));
    // An HTTP function's errors become answers (problem+json): the answer's status tells.
    const status = statusOf(request.response) ?? (request.error ? 500 : undefined);
    if (status !== undefined && status >= 500) segment.addFaultFlag();
    else if (status !== undefined && status >= 400) segment.addErrorFlag();
    await capture.after?.(request as never);
    // X-Ray's SDK sends a closed subsegment once its children have ended: work the invocation left
    // running (an outbox delivery in the background) would keep it from ever being sent. Sent now,
    // that work's subsegments follow as they end.
    if (segment.counter > 0) segment.flush();
  };
  return {
    before: async (request) => {
      if (!capture || !tracer) return;
      await capture.before?.(request as never);
      const segment = tracer.getSegment() as SubsegmentLike | undefined;
      if (segment) segments.set(request, segment);
    },
    after: (request) => finish(request as R),
    // Only a flag: Powertools' own onError would record the error's text.
    onError: (request) => finish(request as R),
  };
}
