/**
 * The terms of a disjunction and which are defaults (spec.md, "Default values"): a marked term
 * (`*t`) is a default, and when t is itself a disjunction with defaults only those are; when any
 * term is marked, the terms that are not contribute no default; when none is, each term's own
 * defaults remain (`*"a" | (*"b" | "c")` is `*"a" | "b" | "c"`; `(*"a" | "b") | "c"` keeps `*"a"`).
 */
import type { Expr } from '../syntax/ast';

export interface Term<T> {
  readonly value: T;
  readonly isDefault: boolean;
}

/** Terms given with their own disjunction (if they are one) and whether they were marked. */
export function combineDefaults<T>(terms: readonly { readonly marked: boolean; readonly inner?: readonly Term<T>[]; readonly value: T }[]): Term<T>[] {
  const anyMarked = terms.some((term) => term.marked);
  return terms.flatMap((term) => {
    if (!term.inner) return [{ value: term.value, isDefault: term.marked }];
    const innerDefaults = term.inner.some((member) => member.isDefault);
    return term.inner.map((member) => ({ value: member.value, isDefault: anyMarked ? term.marked && (!innerDefaults || member.isDefault) : member.isDefault }));
  });
}

const unparen = (expr: Expr): Expr => (expr.type === 'paren' ? unparen(expr.expr) : expr);

const written = new WeakMap<Expr, readonly Term<Expr>[]>();

/** The disjuncts of a `|` expression as written, nested disjunctions flattened (once per expression: a policy is evaluated many times). */
export function disjunctsOf(expr: Expr): readonly Term<Expr>[] {
  let terms = written.get(expr);
  if (!terms) {
    terms = flatten(expr);
    written.set(expr, terms);
  }
  return terms;
}

function flatten(expr: Expr): Term<Expr>[] {
  const terms: { marked: boolean; value: Expr }[] = [];
  const collect = (part: Expr) => {
    const bare = part.type === 'binary' && part.op === '|' ? part : undefined;
    if (bare) {
      collect(bare.left);
      collect(bare.right);
    } else if (part.type === 'unary' && part.op === '*') terms.push({ marked: true, value: part.operand });
    else terms.push({ marked: false, value: part });
  };
  collect(expr);
  return combineDefaults(
    terms.map((term) => {
      const inner = unparen(term.value);
      return { ...term, inner: inner.type === 'binary' && inner.op === '|' ? disjunctsOf(inner) : undefined };
    }),
  );
}

const outer = new WeakMap<Expr, readonly { readonly marked: boolean; readonly value: Expr }[]>();

/** The terms of a `|` expression as written, a parenthesized disjunction being one term (CUE evaluates it within each disjunct). */
export function outerTermsOf(expr: Expr): readonly { readonly marked: boolean; readonly value: Expr }[] {
  let terms = outer.get(expr);
  if (!terms) {
    terms = collectOuter(expr);
    outer.set(expr, terms);
  }
  return terms;
}

function collectOuter(expr: Expr): { readonly marked: boolean; readonly value: Expr }[] {
  if (expr.type === 'binary' && expr.op === '|') return [...collectOuter(expr.left), ...collectOuter(expr.right)];
  if (expr.type === 'unary' && expr.op === '*') return [{ marked: true, value: unparen(expr.operand) }];
  return [{ marked: false, value: unparen(expr) }];
}
