/** Lists (spec.md, "Lists"): literals unified into a vertex, their lengths checked and `...T` applied past them. */
import type { Expr, ListLit } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { CloseGroup } from './closedness';
import { addComprehension } from './comprehensions';
import { appended, type Conjunct, type Env, type ValueExpr } from './conjuncts';
import { bottom, type Value } from './values';
import { NO_CONJUNCTS, Vertex } from './vertex';

export interface ListPart {
  readonly length: number;
  readonly open: boolean;
  readonly rest?: { expr: Expr; env: Env; closed: boolean; origin?: object };
  readonly at: Position;
}

/**
 * What closes a list element with the other structs of its definition, as a field's origin does: the sides of
 * a conjunction (`#c: [#f1 & {as: []}]`) or disjunction, and a struct beside the list's `...T` (`[...#V] & [{spec: 1}]`)
 * close together. Only those: an element that is a reference keeps its own group (recursive lists such as
 * `#T: ["a", #T]` were over ten times slower per step with one).
 */
function elementOrigin(conjunct: Conjunct, element: Expr): object | undefined {
  if (!conjunct.closed || !((element.type === 'binary' && (element.op === '&' || element.op === '|')) || element.type === 'struct')) return undefined;
  return conjunct.origin ?? {};
}

export function addList(vertex: Vertex, conjunct: Conjunct, lit: ListLit): void {
  vertex.isList = true;
  vertex.work.shapes.push(lit.at);
  const env = conjunct.env;
  let index = 0;
  for (const element of lit.elements) {
    if (element.type === 'comprehension') {
      index = addComprehension(vertex, element, env, conjunct.closed, new CloseGroup(), index);
      continue;
    }
    vertex.arc(String(index++)).addConjunct({ expr: element, env, closed: conjunct.closed, via: conjunct.via, origin: elementOrigin(conjunct, element) });
  }
  const rest = lit.rest?.type ? { expr: lit.rest.type, env, closed: conjunct.closed, origin: conjunct.closed ? conjunct.origin : undefined } : undefined;
  vertex.work.lists.push({ length: index, open: Boolean(lit.rest), rest, at: lit.at });
}

/** List lengths: closed lists must agree; elements past an open list's own get its `...T`. */
export function closeLists(vertex: Vertex): void {
  if (vertex.work.lists.length === 0) return;
  const closed = vertex.work.lists.filter((part) => !part.open);
  const longest = Math.max(...vertex.work.lists.map((part) => part.length));
  if (closed.length > 0) {
    const length = closed[0].length;
    const other = closed.find((part) => part.length !== length) ?? vertex.work.lists.find((part) => part.open && part.length > length);
    if (other) {
      vertex.fail(bottom(`incompatible list lengths (${length} and ${other.length})`, [closed[0].at, other.at]));
      return;
    }
    vertex.listOpen = false;
  }
  const length = closed.length > 0 ? closed[0].length : longest;
  for (const part of vertex.work.lists) {
    if (!part.rest) continue;
    for (let index = part.length; index < length; index++) {
      const arc = vertex.arc(String(index));
      arc.conjuncts = appended(arc.conjuncts, NO_CONJUNCTS, { expr: part.rest.expr, env: part.rest.env, closed: part.rest.closed, origin: part.rest.origin });
    }
  }
}

/**
 * A list made of values (a builtin's result, a slice, `+` and `*` of lists): its elements are
 * conjuncts of its own list literal, so a field unified with it gets them too.
 */
export function listOf(from: Vertex, values: readonly Value[], env: Env, at: Position = { offset: 0, line: 0, column: 0 }): Vertex {
  const list = new Vertex(from.ctx, from.label, from.parent);
  // An element may be a value already evaluated: addList adds each as a conjunct of its arc, which takes a ValueExpr.
  const elements = values.map((value): ValueExpr => ({ type: 'value', value })) as unknown as Expr[];
  list.addConjunct({ expr: { type: 'list', elements, at }, env, closed: false });
  list.evaluate();
  return list;
}
