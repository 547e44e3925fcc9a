/**
 * What a vertex unifies (CUE's adt.Conjunct): an expression with the scope it is read in, and what closes
 * it. Descriptor data and values already evaluated are conjuncts too.
 */
import type { Expr, StructLit } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import type { CloseGroup } from './closedness';
import { startOf } from './expressions';
import type { Value } from './values';
import type { Vertex } from './vertex';

/** A JSON value from a descriptor, unified as CUE would read it from a .json file. */
export interface DataExpr {
  readonly type: 'data';
  readonly value: unknown;
}

/** A value already evaluated (a pattern's label, a builtin's struct). */
export interface ValueExpr {
  readonly type: 'value';
  readonly value: Value;
  readonly at?: Position;
}

export type ConjunctExpr = Expr | DataExpr | ValueExpr;
/** Names visible at one level of scope: a struct literal's fields and lets, or bound variables. */
export interface Env {
  readonly up?: Env;
  readonly vertex?: Vertex;
  readonly scope?: StructLit;
  readonly vars?: ReadonlyMap<string, Vertex | Value>;
  /** let values of this scope, once evaluated. */
  lets?: Map<string, Value>;
}

/** derived() copies every field: one added here is added there too. */
export interface Conjunct {
  readonly expr: ConjunctExpr;
  readonly env: Env;
  /** From inside a definition: the structs it makes are closed. */
  readonly closed: boolean;
  /** The closedness group the struct literal of this conjunct adds its labels to (embeddings). */
  readonly group?: CloseGroup;
  /** Written as an embedding (`{#A, c: 1}`): a definition it names joins the embedding struct's group. */
  readonly embedded?: boolean;
  /** One side of a conjunction (`#A & {...}`). */
  readonly viaConjunction?: boolean;
  /** What closes it (a definition, a closed struct): closed conjuncts of one origin share a closedness group. */
  readonly origin?: object;
  /** The fields whose expansion it came from, innermost first (CUE's per-conjunct reference history, cycle.go). */
  readonly via?: Via;
  /** The field's own conjunct it was derived from (a disjunct, parentheses, a mark), not through a conjunction. */
  readonly from?: Conjunct;
  /** Closed only by the struct it is in embedding a definition: a reference to the field alone is open (CUE's reclose2). */
  readonly reclosed?: boolean;
}

/**
 * One expansion in a conjunct's history: `shared` when the field it was expanded into had no other
 * conjunct, so that CUE shares the referenced value instead of evaluating it again (share.go).
 */
export interface Via {
  readonly target: Vertex;
  readonly shared: boolean;
  readonly up?: Via;
}

/** Whether a conjunct came from a shared expansion of a field: one it names again is then an ancestor of itself. */
export function sharedExpansionOf(via: Via | undefined, target: Vertex): boolean {
  for (let at = via; at; at = at.up) if (at.target === target && at.shared) return true;
  return false;
}

export interface Pattern {
  readonly label: Expr;
  readonly env: Env;
  readonly value: Expr;
  readonly alias?: string;
  /** `x=[string]: ...`: the name of the field it applies to. */
  readonly fieldAlias?: string;
  readonly closed: boolean;
  /** What closes the struct that declares it: the fields it applies to are also declared there. */
  readonly origin?: object;
  matcher?: Value;
}

/** Appends to an array that may be one of the shared empty ones: a new array then, sized for its one element. */
export function appended<T>(array: T[], empty: T[], item: T): T[] {
  if (array === empty) return [item];
  array.push(item);
  return array;
}

/** Data has no scope: nothing in it refers to anything. */
const DATA_ENV: Env = {};

export const dataConjunct = (value: unknown): Conjunct => ({ expr: { type: 'data', value }, env: DATA_ENV, closed: false });
export function derived(conjunct: Conjunct, expr: ConjunctExpr, env = conjunct.env, viaConjunction = conjunct.viaConjunction): Conjunct {
  const from = viaConjunction ? undefined : (conjunct.from ?? conjunct);
  return {
    expr,
    env,
    closed: conjunct.closed,
    group: conjunct.group,
    embedded: conjunct.embedded,
    viaConjunction,
    origin: conjunct.origin,
    via: conjunct.via,
    from,
    reclosed: conjunct.reclosed,
  };
}

export const atOf = (expr: ConjunctExpr): Position | undefined => (expr.type === 'data' ? undefined : expr.type === 'value' ? expr.at : startOf(expr));
