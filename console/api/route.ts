import type { Endpoint, HttpMethod } from '#lib/http/endpoint';

/**
 * An endpoint as the console calls it: its method and path (console/api/routes.ts, generated from
 * the contracts), and its contract as a type only, which types the call's inputs and answer.
 */
export interface Route<E extends Endpoint> {
  readonly method: HttpMethod;
  readonly path: string;
  /** Never set: it carries the contract's type. */
  readonly contract?: E;
}
