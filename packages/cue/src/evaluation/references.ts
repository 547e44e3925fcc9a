import type { Expr, ScopeEntry, StructLit } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { builtins } from './builtins-registry';
import { isDefinitionLabel } from './closedness';
import { type Env } from './conjuncts';
import { defaultOf, evalExpr, labelMatches, sourceText, startOf } from './expressions';
import { concrete, operandOf } from './operators';
import {
  type Bottom,
  bottom,
  formatValue,
  incomplete,
  INT,
  isBottom,
  isScalar,
  kindName,
  kindOf,
  LIST,
  NUMBER,
  STRING,
  STRUCT,
  TOP,
  typeName,
  type Value,
} from './values';
import { regularKey, Vertex } from './vertex';

/** The names a struct literal declares: field labels (and their aliases) and lets. */
function entriesOf(lit: StructLit): ReadonlyMap<string, ScopeEntry> {
  if (lit.scope) return lit.scope;
  const entries = new Map<string, ScopeEntry>();
  for (const decl of lit.decls) {
    if (decl.type === 'field' && decl.label.kind === 'name') {
      const { name, quoted } = decl.label;
      // A quoted label binds no identifier (CUE's ast.LabelName): in `"as": f(as)`, as is a field further out.
      if (!entries.has(name) && !quoted) entries.set(name, { kind: 'field', label: name, quoted });
      if (decl.alias) entries.set(decl.alias, { kind: 'field', label: name, quoted });
    } else if (decl.type === 'field' && decl.alias && (decl.label.kind === 'interpolated' || decl.label.kind === 'dynamic')) {
      entries.set(decl.alias, { kind: 'computed', label: decl.label.expr });
    } else if (decl.type === 'let') entries.set(decl.name, { kind: 'let', expr: decl.expr });
  }
  lit.scope = entries;
  return entries;
}

/** Whether a name is declared by a scope (the save check looks for unknown references). */
export function declares(scope: StructLit, name: string): boolean {
  return entriesOf(scope).has(name);
}

/** The errors of references to required fields that are not there. */
const requiredMissing = new WeakSet<Bottom>();

function missingRequired(label: string, at: Position): Bottom {
  const error = incomplete(`required field missing: ${label}`, [at]);
  requiredMissing.add(error);
  return error;
}

function lookup(name: string, env: Env, at: Position, from: Vertex): Vertex | Value {
  for (let e: Env | undefined = env; e; e = e.up) {
    const bound = e.vars?.get(name);
    if (bound) return bound;
    if (!e.scope) continue;
    const entry = entriesOf(e.scope).get(name);
    if (!entry) continue;
    if (entry.kind === 'field') {
      const arc = (e.vertex as Vertex).arc(entry.label, !entry.quoted && isDefinitionLabel(entry.label), !entry.quoted && entry.label.startsWith('_'));
      // An optional or required field is a constraint, not a value: reading it is incomplete until it is there,
      // which a descriptor may make it (the save check: what reads it is not settled); a required definition too (`#D!:`).
      if (!arc.regular && (!arc.definition || arc.required)) {
        if (arc.ctx.withoutData) {
          arc.ctx.taint++;
          arc.ctx.dataReads++;
        }
        return arc.required ? missingRequired(entry.label, at) : incomplete(`cannot reference optional field: ${entry.label}`, [at]);
      }
      return arc;
    }
    if (entry.kind === 'computed') {
      const label = defaultOf(evalExpr(entry.label, e, from));
      return label.t === 'string' ? (e.vertex as Vertex).arc(label.v) : isBottom(label) ? label : bottom(`invalid label type ${typeName(label)}`, [at]);
    }
    e.lets ??= new Map();
    let value = e.lets.get(name);
    if (!value) {
      e.lets.set(name, bottom(`cycle in let ${name}`, [at], 'cycle'));
      value = evalExpr(entry.expr, e, from);
      if (isBottom(value) && !value.origin && e.vertex) value = { ...value, origin: [...e.vertex.path(), name] };
      // Read inside a cycle not resolved yet (`let v = email`, `email: v`): read again next time.
      if (isBottom(value) && value.code === 'cycle') e.lets.delete(name);
      else e.lets.set(name, value);
    }
    return value;
  }
  if (name === '_') return TOP;
  // `__no_sharing` is a name of CUE's own test harness (conformance files): the save check never lets a script use it.
  if (name === '__no_sharing') return TOP;
  return builtins().predeclared.get(name) ?? bottom(`reference "${name}" not found`, [at]);
}

/** The let a name reads and the scope it is written in, or undefined when the name is something else. */
export function letBinding(name: string, env: Env): { readonly expr: Expr; readonly env: Env } | undefined {
  for (let e: Env | undefined = env; e; e = e.up) {
    if (e.vars?.has(name)) return undefined;
    const entry = e.scope && entriesOf(e.scope).get(name);
    if (entry) return entry.kind === 'let' ? { expr: entry.expr, env: e } : undefined;
  }
  return undefined;
}

/**
 * Counts a read of a value a descriptor could still change (the save check): a struct or list it
 * could extend, or a field of the descriptor's own space that is not concrete yet.
 */
export function noteRead(vertex: Vertex): void {
  const { ctx } = vertex;
  if (!ctx.withoutData) return;
  if (vertex.readsData) ctx.dataReads++;
  if (vertex.tainted) {
    ctx.taint++;
    // A field of the descriptor's space that is not final (`[...] & list.UniqueItems()`) is a read of data too.
    if (vertex.inDataSpace()) ctx.dataReads++;
  } else if (vertex.inDataSpace()) {
    const value = vertex.value;
    const extensible = value === vertex ? vertex.mayReceiveData() : !isScalar(value);
    if (extensible || vertex.state !== 'done') {
      ctx.taint++;
      ctx.dataReads++;
    }
  }
}

/**
 * What a reference stands for: the vertex of a field (its conjuncts are unified where it is used)
 * or a value (a let, a bound variable, a builtin, an error).
 */
export function resolveReference(expr: Expr, env: Env, from: Vertex): Vertex | Value {
  switch (expr.type) {
    case 'ident':
      return lookup(expr.name, env, expr.at, from);
    case 'selector':
      return select(operandOf(expr.target, env, from), expr.name, expr.at, false, expr);
    case 'index': {
      const target = operandOf(expr.target, env, from);
      // An operand that is a value, not a field, must be a struct or list (`2[0]`).
      const operand = target instanceof Vertex ? target : defaultOf(target);
      if (!(operand instanceof Vertex) && isScalar(operand))
        return bottom(`invalid operand ${sourceText(expr.target) ?? formatValue(operand)} (found ${typeName(operand)}, want list or struct)`, [
          startOf(expr.target),
        ]);
      const value = defaultOf(evalExpr(expr.index, env, from));
      // CUE's getDefault: a disjunction without one default is no label yet.
      if (value.t === 'disj') return incomplete(`unresolved disjunction ${formatValue(value)} (type ${typeName(value)})`, [expr.index.at]);
      // An index that is not known yet must at least be an int or a string (CUE's Label): `[1][top]` never is.
      if (value.t === 'top' || (value.t === 'constraint' && value.kinds !== INT && value.kinds !== NUMBER && value.kinds !== STRING)) {
        return bottom(`invalid index ${sourceText(expr.index) ?? formatValue(value)} (invalid type ${typeName(value)})`, [startOf(expr), expr.index.at]);
      }
      // A label of the right kind that is not concrete yet (CUE's LabelFromValue).
      if (value.t === 'constraint')
        return incomplete(`invalid non-ground value ${formatValue(value)} (must be concrete ${value.kinds === STRING ? 'string' : 'int'})`, [expr.index.at]);
      const index = concrete(value, 'index', expr.index.at);
      if (isBottom(index)) return index;
      if (index.t === 'num') {
        if (!index.int) return bottom(`invalid index ${formatValue(index)} (type float)`, [expr.index.at]);
        if (index.v < 0) {
          // A constant is always wrong; a computed index is out of range (CUE's LabelFromValue).
          const constant = expr.index.type === 'literal' || expr.index.type === 'unary';
          return bottom(
            constant
              ? `invalid index ${formatValue(index)} (index must be non-negative)`
              : `index ${sourceText(expr.index) ?? formatValue(index)} out of range [${formatValue(index)}]`,
            [expr.index.at],
          );
        }
        return select(target, String(index.v), expr.at, true, expr);
      }
      if (index.t === 'string') return select(target, index.v, expr.at, false, expr);
      return bottom(`invalid index ${sourceText(expr.index) ?? formatValue(index)} (invalid type ${typeName(index)})`, [expr.index.at]);
    }
    case 'paren':
      return resolveReference(expr.expr, env, from);
    default:
      return evalExpr(expr, env, from);
  }
}

/** `ref`: the selection or index written, for CUE's wording of what is not known yet (`top.foo undefined as top is incomplete`). */
function select(target: Vertex | Value, name: string, at: Position, index = false, ref?: Expr): Vertex | Value {
  // A name no package exports (`list.max`) is missing from its struct, which CUE reports as incomplete.
  if (target.t === 'package') return target.members.get(name) ?? bottom(`undefined field: ${name}`, [at], /^[A-Z]/.test(name) ? 'eval' : 'incomplete');
  if (!(target instanceof Vertex)) {
    const value = target.t === 'disj' ? defaultOf(target) : target;
    if (value instanceof Vertex) return select(value, name, at, index, ref);
    if (isBottom(value)) return value;
    if (value.t === 'top' || value.t === 'constraint' || value.t === 'disj') {
      if (index && (kindOf(value) & LIST) === 0) return bottom(`invalid index ${name} (found ${typeName(value)}, want list)`, [at]);
      // No single default to read through (CUE's getDefault).
      if (value.t === 'disj') return incomplete(`unresolved disjunction ${formatValue(value)} (type ${typeName(value)})`, [at]);
      const operand = ref && (ref.type === 'selector' || ref.type === 'index') ? sourceText(ref.target) : undefined;
      const written =
        operand === undefined || ref === undefined
          ? undefined
          : ref.type === 'selector'
            ? `${operand}.${ref.name}`
            : ref.type === 'index'
              ? `${operand}[${sourceText(ref.index) ?? name}]`
              : undefined;
      if (written && (kindOf(value) & STRUCT) !== 0) return incomplete(`${written} undefined as ${operand} is incomplete (type ${typeName(value)})`, [at]);
      return incomplete(`${index ? 'index' : 'selector'} ${name} of a value that is not known yet`, [at]);
    }
    if (index) return bottom(`invalid index ${name} (found ${typeName(value)}, want list)`, [at]);
    return bottom(`invalid selector ${name} for value of type ${typeName(value)}`, [at]);
  }
  // A string index names a regular field: `x["_id"]` is the field "_id", `x._id` the hidden one.
  const key = ref?.type === 'index' ? regularKey(name) : name;
  // A definition or hidden field beside a scalar (`{"foo", #bar: "bar"}.#bar`).
  if (key === name && !index && (name.startsWith('#') || name.startsWith('_')) && target.evaluate() !== target) {
    const attached = target.arcAt(name);
    if (attached) return attached;
  }
  // A field of a struct being evaluated is there already (`local: _zones[local.zone]` beside `local: zone: "zrh1"`).
  if (target.state === 'evaluating' && !index) {
    const arc = target.arcAt(key);
    if (arc?.regular) return arc;
  }
  const resolved = target.resolved();
  if (!(resolved instanceof Vertex)) {
    // A field that is not a struct yet (`meta: _`) may become one with a descriptor: the save check must not settle what reads it.
    noteRead(target);
    // An open list a validator finds incomplete (`[...] & list.MinItems(1)`) has nothing past its end yet, as CUE says: still incomplete.
    if (index && isBottom(resolved) && resolved.code === 'incomplete' && target.isList && target.listOpen && !target.arcAt(name))
      return incomplete(`index out of range [${name}] with length ${target.elements().length}`, [at]);
    // A field that is a required field not there has not the field asked either (CUE looks it up in that field's): `undefined field`.
    if (!index && isBottom(resolved) && requiredMissing.has(resolved)) return incomplete(`undefined field: ${selectorText(name)}`, [at]);
    return select(resolved, name, at, index, ref);
  }
  noteRead(resolved);
  if (index && !resolved.isList) return bottom(`invalid index ${name} (found ${kindName(kindOf(resolved))}, want list)`, [at]);
  if (!index && resolved.isList) return bottom(`undefined field: ${selectorText(name)}`, [at]);
  const arc = resolved.arcAt(key);
  if (!arc || (!arc.regular && ((!arc.definition && !arc.hidden) || arc.required))) {
    if (index) return bottom(`index out of range [${name}] with length ${resolved.elements().length}`, [at], resolved.listOpen ? 'incomplete' : 'eval');
    // A closed struct will never have it, unless a pattern allows it; an open one may yet (CUE's Accept).
    if (resolved.isClosed() && !arc && !resolved.patterns.some((pattern) => labelMatches(pattern, name, resolved)))
      return bottom(`undefined field: ${name}`, [at]);
    if (resolved.ctx.withoutData) {
      resolved.ctx.taint++;
      resolved.ctx.dataReads++;
    }
    if (arc) return arc.required ? missingRequired(selectorText(name), at) : incomplete(`cannot reference optional field: ${selectorText(name)}`, [at]);
    return incomplete(`undefined field: ${name}`, [at]);
  }
  return arc;
}

/** A label as CUE prints it in a selector: quoted unless it is an identifier. */
function selectorText(name: string): string {
  return /^[#_]*[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}
