import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { z } from 'zod';

import { outboxAuditTrail } from '#lib/audit/audit-trail';
import { Access, type Scope } from '#lib/authorization/access';
import { unstorableText } from '#lib/db/storable-text';
import { metricsMiddleware } from '#lib/observability/metrics';
import { tracingMiddleware } from '#lib/observability/tracing';

import { authenticate } from './authentication';
import { serviceFrame, serviceSettings } from './composition';
import { problemOfDomainError } from './domain-problems';
import type { Endpoint, HttpRequest, HttpResult, Principal } from './endpoint';
import { audit, auditIn, recordAhead } from './middleware/audit';
import { jsonBody } from './middleware/json-body';
import { problemErrors } from './middleware/problem-errors';
import { REQUEST_ID_HEADER, requestContext, type RequestContextInternal, requestLogOf } from './middleware/request-context';
import { requestMetrics } from './middleware/request-metrics';
import { fieldErrors } from './problem-response';
import { type FieldError, HttpProblem, Invalid } from './problems';

const DEADLINE_MARGIN_MS = 1000;
const PUBLIC: Principal = { subject: 'anonymous', method: 'public', groups: [], access: new Access([]) };

/** Who made each request in flight, for the audit record (the event is the request's identity). */
const principals = new WeakMap<APIGatewayProxyEventV2, Principal>();

/** A Lambda handler of API Gateway's HTTP API events. */
export type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The Lambda handler of one endpoint, with the contract it serves (its method and path route it: lib/service/routed-handler.ts). */
export type HttpHandler = LambdaHttpHandler & { readonly endpoint: Endpoint };

/**
 * Path, query and body against the endpoint's schemas, with one 400 listing every bad field.
 * Text the database cannot store (NUL, unpaired surrogates) is refused here for every endpoint.
 */
function validate<E extends Endpoint>(endpoint: E, query: Endpoint['query'], event: APIGatewayProxyEventV2) {
  const errors: FieldError[] = [];
  const parse = (schema: Endpoint['body'], input: unknown, prefix?: string) => {
    if (!schema) return undefined;
    const unstorable = unstorableText(input, prefix);
    if (unstorable) {
      errors.push(unstorable);
      return undefined;
    }
    const result = schema.safeParse(input ?? {});
    if (result.success) return result.data;
    errors.push(...fieldErrors(result.error.issues, prefix));
    return undefined;
  };
  const params = parse(endpoint.params, event.pathParameters, 'path');
  const parsedQuery = parse(query, event.queryStringParameters, 'query');
  const body = parse(endpoint.body, event.body);
  if (errors.length > 0) throw new Invalid(errors);
  return { params, query: parsedQuery, body } as Pick<HttpRequest<E>, 'params' | 'query' | 'body'>;
}

function toResponse(result: HttpResult): APIGatewayProxyStructuredResultV2 {
  if (result.bytes !== undefined)
    return { statusCode: result.status, headers: { ...result.headers }, body: Buffer.from(result.bytes).toString('base64'), isBase64Encoded: true };
  if (result.text !== undefined) return { statusCode: result.status, headers: { ...result.headers }, body: result.text };
  if (result.body === undefined) return { statusCode: result.status, headers: { ...result.headers } };
  return {
    statusCode: result.status,
    headers: { 'content-type': 'application/json', ...result.headers },
    body: JSON.stringify(result.body),
  };
}

export interface HandlerOptions {
  /**
   * Told of a request an authenticated caller made that failed with a 4xx problem (invalid,
   * conflicting...; not 403), with the body as sent; for side effects such as a failure notification.
   */
  readonly onRejected?: (problem: HttpProblem, body: unknown, principal: Principal) => Promise<void>;
  /**
   * The handler writes its audit records itself: in the transaction of its change (`auditIn`), or
   * ahead (`recordAhead`) before any other change. Nothing is written ahead for it: the deploy
   * gate's call saves a transaction (lib/http/middleware/audit.ts).
   */
  readonly ownAuditRecords?: boolean;
  /**
   * The call changes nothing itself, whatever its method (the MCP endpoint: each operation its tools
   * perform is a call of its own, audited as such): recorded as a read, never chained.
   */
  readonly changesNothing?: boolean;
}

/** The audit trail of the endpoints of this process. */
const outboxTrail = outboxAuditTrail(serviceFrame);

/** The access this call needs: the endpoint's, or, of a public one, that of the query values it names (none otherwise). */
function accessOf(endpoint: Endpoint, event: APIGatewayProxyEventV2): Endpoint['access'] {
  if (!endpoint.public) return endpoint.access;
  const when = endpoint.accessWhen;
  const query = event.queryStringParameters ?? {};
  return when && Object.entries(when.query).every(([name, value]) => query[name] === value) ? when.access : undefined;
}

/**
 * Builds the Lambda handler of an endpoint. Every endpoint of both services goes through this one
 * chain: the trace's handler subsegment, metrics (flushed after the answer), request id and access log, audit record, problem+json errors, header normalisation,
 * authentication, the audit record written ahead of a write, JSON body parsing, zod validation of path, query and body.
 */
export function httpHandler<E extends Endpoint>(
  endpoint: E,
  handle: (request: HttpRequest<E>) => Promise<HttpResult>,
  options: HandlerOptions = {},
): HttpHandler {
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal>({
    // Answer (and abort the work through `signal`) a second before Lambda would kill the function.
    timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
    timeoutEarlyResponse: () => {
      throw new HttpProblem(504, 'Gateway Timeout', 'The request did not finish within the time limit of the function');
    },
  })
    .use(tracingMiddleware(({ event }) => ({ requestId: event.headers?.[REQUEST_ID_HEADER], operation: endpoint.operationId })))
    .use(metricsMiddleware(serviceSettings))
    .use(requestMetrics(endpoint.operationId))
    .use(requestContext());
  // Public endpoints (health, OpenAPI, unknown routes) are not user calls.
  const audited = endpoint.public
    ? undefined
    : audit(endpoint.operationId, (event) => principals.get(event), outboxTrail, {
        ownRecords: options.ownAuditRecords,
        changesNothing: options.changesNothing,
      });
  if (audited) chain.use(audited.outcome);
  chain.use(problemErrors()).use(httpHeaderNormalizer());
  // Credentials and the permission come before the body: a caller without them learns nothing of
  // what the body should be.
  if (!endpoint.public && !endpoint.access)
    throw new Error(`${endpoint.operationId} declares no access: every endpoint that is not public says who may call it`);
  if (!endpoint.public || endpoint.accessWhen) {
    chain.use({
      before: async ({ event }) => {
        const access = accessOf(endpoint, event);
        if (!access) return;
        const principal = await authenticate(event, endpoint, await serviceFrame());
        principals.set(event, principal);
        if (access !== 'authenticated') principal.access.require(access.permission, access.scope === 'resource' ? 'anywhere' : access.scope);
      },
    });
  }
  if (audited) chain.use(audited.ahead);
  if (endpoint.body) chain.use(jsonBody());
  // A query parameter the API does not know is refused, never ignored: a client's misspelt filter
  // would otherwise list everything. Public endpoints (health, documents, console pages) ignore them.
  const query = endpoint.public ? endpoint.query : (endpoint.query ?? z.object({})).strict();
  const handler = chain.handler(async (event, _context, { signal }) => {
    const principal = principals.get(event) ?? PUBLIC;
    let authorized = false;
    const authorize = (scope: Scope) => {
      const access = endpoint.access;
      if (access === undefined || access === 'authenticated') throw new Error(`${endpoint.operationId} has no permission to check`);
      principal.access.require(access.permission, 'resource', scope);
      authorized = true;
    };
    try {
      const input = validate(endpoint, query, event);
      const result = await handle({
        ...input,
        headers: event.headers ?? {},
        method: event.requestContext?.http?.method ?? '',
        path: event.rawPath ?? '',
        requestId: event.headers[REQUEST_ID_HEADER] ?? '',
        // Made when the handler first logs (most never do).
        get log() {
          return requestLogOf(event);
        },
        principal,
        authorize,
        signal,
        auditIn: auditIn(event),
        recordAhead: recordAhead(event),
      });
      // An endpoint whose permission depends on what it acts on must have checked it.
      if (typeof endpoint.access === 'object' && endpoint.access.scope === 'resource' && !authorized)
        throw new Error(`${endpoint.operationId} answered without checking its permission on what it acts on (request.authorize)`);
      return toResponse(result);
    } catch (error) {
      const problem = error instanceof HttpProblem ? error : problemOfDomainError(error);
      // Input refused (400, 409...), not a caller refused (403: what it may do is not news).
      if (options.onRejected && problem && problem.status >= 400 && problem.status < 500 && problem.status !== 403)
        await options.onRejected(problem, event.body, principal);
      throw error;
    }
  });
  return Object.assign(handler, { endpoint }) as unknown as HttpHandler;
}
