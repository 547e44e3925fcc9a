import type { z } from 'zod';

import type { Access, Scope, ScopeRule } from '#lib/authorization/access';
import type { Permission } from '#lib/authorization/roles';
import type { Transaction } from '#lib/db/transaction';
import type { Logger } from '#lib/logging/logger';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint: a permission, and where it must be held (lib/authorization/access.ts).
 * `authenticated`: any caller with valid credentials (GET /me).
 */
export type EndpointAccess = { readonly permission: Permission; readonly scope: ScopeRule } | 'authenticated';

/**
 * The contract of one endpoint: route, inputs and answers as zod schemas. The handler factory
 * validates against it and the OpenAPI document is generated from it, so the two cannot drift.
 * Contracts hold no implementation, so the OpenAPI function bundles none.
 */
export interface Endpoint {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** API Gateway / OpenAPI form: /v1/things/{id} */
  readonly path: string;
  readonly summary: string;
  readonly tags: readonly string[];
  readonly body?: z.ZodType;
  /** An object: a query parameter it does not name is a 400 (lib/http/handler.ts). */
  readonly query?: z.ZodObject;
  readonly params?: z.ZodType;
  /** `mediaType`: the answer's content type when it is not JSON (the schema is then that of each NDJSON line). */
  readonly responses: Readonly<Record<number, { readonly description: string; readonly schema?: z.ZodType; readonly mediaType?: string }>>;
  /** Reachable without credentials (only /health and /openapi.json); every other endpoint declares its access. */
  readonly public?: boolean;
  /**
   * The permission a caller needs, checked by the handler factory before the body is read; with
   * scope `resource`, the handler also names what it acts on (`request.authorize`).
   */
  readonly access?: EndpointAccess;
  /**
   * Of a public endpoint: the access a call needs when its query has these values (GET /health?detail=true
   * needs an admin's permission; GET /health none), checked as `access` is.
   */
  readonly accessWhen?: { readonly query: Readonly<Record<string, string>>; readonly access: EndpointAccess };
}

export const endpoint = <const E extends Endpoint>(definition: E): E => definition;

type Input<S> = S extends z.ZodType ? z.input<S> : never;
type QueryValue = string | number | boolean | undefined;

/** What a client sends to an endpoint, typed by its contract: the path parameters, the query and the body. */
export type EndpointInputs<E extends Endpoint> = {
  readonly query?: { [K in keyof Input<E['query']>]?: Input<E['query']>[K] | QueryValue };
  readonly body?: Input<E['body']>;
} & (E['params'] extends z.ZodType ? { readonly params: Input<E['params']> } : { readonly params?: undefined });

/** What an endpoint answers with a 2xx, by its contract: the output of any of its 2xx schemas. */
export type EndpointAnswer<E extends Endpoint> = {
  [S in keyof E['responses']]: S extends 200 | 201 | 202 | 204
    ? E['responses'][S] extends { schema: infer T extends z.ZodType }
      ? z.output<T>
      : undefined
    : never;
}[keyof E['responses']];

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface Principal {
  /** Who is calling, recorded as createdBy / updatedBy on writes. */
  readonly subject: string;
  readonly method: 'public' | 'service-account' | 'technical' | 'basic';
  /** The caller's groups (the token's groups claim), as bindings read them. */
  readonly groups: readonly string[];
  /** What the caller may do. */
  readonly access: Access;
}

export interface HttpRequest<E extends Endpoint> {
  readonly body: Output<E['body']>;
  readonly query: Output<E['query']>;
  readonly params: Output<E['params']>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly method: string;
  readonly path: string;
  readonly requestId: string;
  /** The request's logger: its lines carry the request id. */
  readonly log: Logger;
  readonly principal: Principal;
  /**
   * Checks the endpoint's permission on what the call acts on (endpoints whose access scope is
   * `resource` must call it before they change or reveal anything); throws 403 when it is not held there.
   */
  readonly authorize: (scope: Scope) => void;
  /** Aborted when the function is about to run out of time: pass it to outbound calls. */
  readonly signal: AbortSignal;
  /**
   * Writes the call's audit records (written ahead of it) with the answer it is about to give, in
   * `tx`, the transaction of its change: they commit with it, and nothing more is written for them
   * once the call answers (lib/http/middleware/audit.ts). Nothing for a read.
   */
  readonly auditIn: (tx: Transaction, answer: AuditOutcome) => Promise<void>;
  /**
   * Writes the call's audit records ahead now, unless they are: what a handler that writes its own
   * records (HandlerOptions.ownAuditRecords) calls before any change that is not one transaction
   * with `auditIn`. Nothing for a read.
   */
  readonly recordAhead: () => Promise<void>;
}

/** What a call answers, as its audit record says it: the status, and what it created or answered when the answer names it. */
export interface AuditOutcome {
  readonly status: number | undefined;
  readonly location?: string;
}

export interface HttpResult {
  readonly status: number;
  /** Answered as JSON. */
  readonly body?: unknown;
  /** Answered as it is, with the content type in `headers` (another media type, such as NDJSON). */
  readonly text?: string;
  /** Answered as these bytes (base64 to API Gateway), with the content type in `headers` (a zip). */
  readonly bytes?: Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}
