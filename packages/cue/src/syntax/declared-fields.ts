import type { Decl, Expr, Label } from './ast';
import { parseFile } from './parser';

/** A descriptor field a policy declares, by its path (`owner.email`, `ports[].name`, `tags.*`), and how. */
export interface DeclaredField {
  readonly path: string;
  /** `!` required, `?` checked only when present, else regular (it must be there and concrete when the policy requires concrete values). */
  readonly constraint: 'required' | 'optional' | 'regular';
}

const CONSTRAINTS = { '!': 'required', '?': 'optional' } as const;
/** At most this many steps of the walk: definitions that name each other fan out (`#A: {x: #B, y: #B}`, `#B: ...`). */
const MAX_STEPS = 10_000;

/** A label as a path segment: its name (quoted when it is no identifier), `*` for a pattern; none for a computed one, a definition or a hidden field. */
function segmentOf(label: Label): string | undefined {
  if (label.kind === 'pattern') return '*';
  if (label.kind !== 'name' || label.name.startsWith('#') || (!label.quoted && label.name.startsWith('_'))) return undefined;
  return /^[A-Za-z_$][\w$]*$/.test(label.name) ? label.name : JSON.stringify(label.name);
}

/**
 * The descriptor fields a CUE policy declares, read from its syntax (no evaluation): the fields of
 * its top-level struct, of the structs they hold (through `&`, `|`, defaults, parentheses and
 * lists, whose elements are `[]`, and the top-level definitions they name, `#Port`), and of its
 * comprehensions' bodies; definitions themselves, hidden fields and computed labels are left out.
 * Each path once, in the order first declared; the walk stops after MAX_STEPS. A script that does
 * not parse declares none.
 */
export function declaredFields(source: string): DeclaredField[] {
  let decls: readonly Decl[];
  try {
    decls = parseFile(source).decls;
  } catch {
    return [];
  }
  const found = new Map<string, DeclaredField>();
  const definitions = new Map(
    decls.flatMap((decl) =>
      decl.type === 'field' && decl.label.kind === 'name' && decl.label.name.startsWith('#') ? [[decl.label.name, decl.value] as const] : [],
    ),
  );
  const expanding = new Set<string>();
  let steps = 0;
  const visitDecls = (list: readonly Decl[], prefix: string) => {
    for (const decl of list) {
      if (decl.type === 'field') {
        const segment = segmentOf(decl.label);
        if (segment === undefined) continue;
        const path = prefix ? `${prefix}.${segment}` : segment;
        if (!found.has(path)) found.set(path, { path, constraint: decl.constraint ? CONSTRAINTS[decl.constraint] : 'regular' });
        visitExpr(decl.value, path);
      } else if (decl.type === 'embed') visitExpr(decl.expr, prefix);
      else if (decl.type === 'comprehension') visitDecls(decl.body.decls, prefix);
    }
  };
  const visitExpr = (expr: Expr, prefix: string): void => {
    if (++steps > MAX_STEPS) return;
    if (expr.type === 'struct') visitDecls(expr.decls, prefix);
    else if (expr.type === 'binary' && (expr.op === '&' || expr.op === '|')) {
      visitExpr(expr.left, prefix);
      visitExpr(expr.right, prefix);
    } else if (expr.type === 'paren') visitExpr(expr.expr, prefix);
    else if (expr.type === 'unary' && expr.op === '*') visitExpr(expr.operand, prefix);
    else if (expr.type === 'ident' && definitions.has(expr.name) && !expanding.has(expr.name)) {
      expanding.add(expr.name);
      visitExpr(definitions.get(expr.name) as Expr, prefix);
      expanding.delete(expr.name);
    } else if (expr.type === 'list') {
      for (const element of expr.elements) if (element.type !== 'comprehension') visitExpr(element, `${prefix}[]`);
      if (expr.rest?.type) visitExpr(expr.rest.type, `${prefix}[]`);
    }
  };
  visitDecls(decls, '');
  return [...found.values()];
}
