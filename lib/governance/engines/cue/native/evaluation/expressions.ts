/**
 * Expressions (spec.md, "Expressions"): references resolved through the scopes they were written
 * in, operators, bounds, interpolation, calls of builtins.
 */
import { universe } from '../compile/predeclared';
import { decimalArithmetic, type DecimalOp } from '../internal/decimal';
import { InvalidRegexp, regexpOf } from '../internal/re2';
import type { Expr, ScopeEntry, StructLit } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { combineDefaults, disjunctsOf } from './disjuncts';
import { constraint, disjunction, unifyScalars } from './scalars';
import {
  BOOL,
  type Bottom,
  bottom,
  type Bound,
  boundKinds,
  type Builtin,
  BYTES,
  compareOrdered,
  formatValue,
  incomplete,
  INT,
  isBottom,
  isScalar,
  kindName,
  kindOf,
  LIST,
  NUMBER,
  type Scalar,
  scalarEquals,
  STRING,
  STRUCT,
  TOP,
  TOP_KINDS,
  typeName,
  type Value,
} from './values';
import { type Env, isDefinitionLabel, listOf, type Pattern, regularKey, Vertex } from './vertex';

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
      e.lets.set(name, value);
    }
    return value;
  }
  if (name === '_') return TOP;
  // `__no_sharing` is a name of CUE's own test harness (conformance files): the save check never lets a script use it.
  if (name === '__no_sharing') return TOP;
  return universe.get(name) ?? bottom(`reference "${name}" not found`, [at]);
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

/**
 * Whether `x == _|_` holds, as CUE's validate decides it: x is an error, is not concrete (`string`, `_`,
 * a disjunction without default), or is a struct or list with a field below it that is an error other
 * than an incomplete one (CUE makes such a struct an error: `({x: 1} & {x: 3}) == _|_`).
 */
function comparesToBottom(value: Value): boolean {
  const chosen = defaultOf(value);
  if (chosen instanceof Vertex) return finalError(chosen, 0) !== undefined;
  return chosen.t === 'bottom' || chosen.t === 'top' || chosen.t === 'constraint' || chosen.t === 'disj';
}

/** The first error below a struct or list that no more data would resolve (not an incomplete one, nor a cycle). */
function finalError(vertex: Vertex, depth: number): Bottom | undefined {
  for (const arc of vertex.arcs.values()) {
    if (!arc.regular && !arc.required && !arc.notAllowed) continue;
    if (arc.notAllowed) return arc.notAllowed;
    const value = arc.evaluate();
    if (isBottom(value)) {
      if (!isPending(value)) return value;
    } else if (value === arc && depth < arc.ctx.maxDepth) {
      const error = finalError(arc, depth + 1);
      if (error) return error;
    }
  }
  return undefined;
}

const isPending = (error: Bottom): boolean => error.code === 'incomplete' || error.code === 'cycle';

/**
 * What a selection or index is taken from. A struct written in place (`({x: 1, y: 2} & {x: 3}).y`) whose
 * regular field is an error is that error, as in CUE (AddChildError makes a child's error its parent's
 * value). Not an error deeper down, in a hidden field or a field not allowed: CUE reads `.out` of
 * `(#fun & {_in: bad})` (its issue3688) and of a struct with a field not allowed and `out: labstr: bad` (issue837).
 */
function operandOf(expr: Expr, env: Env, from: Vertex): Vertex | Value {
  const target = resolveReference(expr, env, from);
  let written = expr;
  while (written.type === 'paren') written = written.expr;
  if (!(target instanceof Vertex) || written.type === 'ident' || written.type === 'selector' || written.type === 'index') return target;
  for (const arc of target.arcs.values()) {
    if (!arc.regular || arc.hidden || arc.definition || arc.notAllowed) continue;
    const value = arc.evaluate();
    if (isBottom(value) && !isPending(value)) return value;
  }
  return target;
}

/** A label as CUE prints it in a selector: quoted unless it is an identifier. */
function selectorText(name: string): string {
  return /^[#_]*[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

/** The source text of a simple operand (a name, a selection, a literal), as CUE quotes it in errors. */
export function sourceText(expr: Expr): string | undefined {
  switch (expr.type) {
    case 'ident':
      return expr.name;
    case 'selector': {
      const target = sourceText(expr.target);
      return target === undefined ? undefined : `${target}.${expr.name}`;
    }
    case 'literal':
      return expr.kind === 'string' || expr.kind === 'bytes' ? undefined : String(expr.value);
    case 'unary': {
      const operand = sourceText(expr.operand);
      return operand === undefined ? undefined : `${expr.op}${operand}`;
    }
    default:
      return undefined;
  }
}

/** The value of a vertex where an expression needs it: its default when it is a disjunction. */
export function valueOf(target: Vertex | Value): Value {
  if (!(target instanceof Vertex)) return target;
  const value = target.evaluate();
  noteRead(target);
  if (value === target) return target;
  return value;
}

/**
 * A scalar that keeps the definitions embedded with it (and's and or's results: `and([{2, #x: 1}])`) as that scalar,
 * where it is an operand, an argument or interpolated; a reference or a struct literal there is already its value.
 */
const unattached = (value: Value): Value => (value instanceof Vertex ? value.evaluate() : value);

export function defaultOf(value: Value): Value {
  if (value.t !== 'disj') return value;
  const defaults = value.values.filter((_, index) => value.defaults[index]);
  return defaults.length === 1 ? defaults[0] : value;
}

/**
 * A concrete scalar for an operand, or the error saying why not: incomplete while a descriptor
 * could still make it concrete, an error when no value of its kinds would do (`!x` with `x: int`).
 */
function concrete(value: Value, operand: string, at: Position, kinds = TOP_KINDS): Scalar | Bottom {
  const picked = unattached(defaultOf(value));
  if (isScalar(picked)) return picked;
  if (isBottom(picked)) return picked;
  if (picked instanceof Vertex) return bottom(`invalid operand ${formatValue(picked)} (${operand} requires a scalar)`, [at]);
  const message = `non-concrete value ${formatValue(picked)} in operand to ${operand}`;
  return (kindOf(picked) & kinds) === 0 ? bottom(message, [at]) : incomplete(message, [at]);
}

/** The kinds an operator takes. */
function operandKinds(op: string): number {
  switch (op) {
    case '!':
    case '&&':
    case '||':
      return BOOL;
    case '-':
    case '/':
      return NUMBER;
    case '+':
    case '*':
      return NUMBER | STRING | BYTES | LIST;
    case '=~':
    case '!~':
      return STRING | BYTES;
    case '<':
    case '<=':
    case '>':
    case '>=':
      return NUMBER | STRING | BYTES;
    default:
      return TOP_KINDS;
  }
}

export function evalExpr(expr: Expr, env: Env, from: Vertex): Value {
  from.ctx.step();
  switch (expr.type) {
    case 'literal':
      return literal(expr);
    case 'interpolation':
      return interpolate(expr, env, from);
    case 'ident':
    case 'selector':
    case 'index':
      return valueOf(resolveReference(expr, env, from));
    case 'paren':
    case 'alias':
      return evalExpr(expr.expr, env, from);
    case 'struct':
    case 'list': {
      const vertex = new Vertex(from.ctx, from.label, from.parent);
      vertex.addConjunct({ expr, env, closed: false });
      return valueOf(vertex);
    }
    case 'slice':
      return slice(expr, env, from);
    case 'call':
      return call(expr, env, from);
    case 'unary':
      return unary(expr, env, from);
    case 'binary':
      return binary(expr, env, from);
  }
}

const MULTIPLIERS: Record<string, number> = { K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };

function parseNumber(text: string, kind: 'int' | 'float'): Scalar {
  const clean = text.replace(/_/g, '');
  const suffix = /(Ki|Mi|Gi|Ti|Pi|K|M|G|T|P)$/.exec(clean);
  if (suffix) return { t: 'num', int: true, v: Math.round(Number(clean.slice(0, -suffix[1].length)) * MULTIPLIERS[suffix[1]]) };
  if (kind === 'float') return { t: 'num', int: false, v: Number(clean), literal: clean };
  if (/^0o/i.test(clean)) return { t: 'num', int: true, v: parseInt(clean.slice(2), 8) };
  if (/^0[0-7]+$/.test(clean)) return { t: 'num', int: true, v: parseInt(clean.slice(1), 8) };
  return { t: 'num', int: true, v: Number(clean) };
}

function literal(expr: Extract<Expr, { type: 'literal' }>): Value {
  switch (expr.kind) {
    case 'int':
    case 'float':
      return parseNumber(expr.value as string, expr.kind);
    case 'string':
      return { t: 'string', v: expr.value as string };
    case 'bytes':
      return { t: 'bytes', v: expr.value as string };
    case 'bool':
      return { t: 'bool', v: expr.value as boolean };
    case 'null':
      return { t: 'null' };
    case 'bottom':
      return bottom('explicit error (_|_ literal) in source', [expr.at], 'user');
  }
}

function interpolate(expr: Extract<Expr, { type: 'interpolation' }>, env: Env, from: Vertex): Value {
  let text = '';
  for (const part of expr.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const value = unattached(defaultOf(evalExpr(part, env, from)));
    if (isBottom(value)) return { ...value, message: `invalid interpolation: ${value.message}` };
    if (value instanceof Vertex || value.t === 'null')
      return bottom(`invalid interpolation: cannot use ${formatValue(value)} (type ${typeName(value)}) as type string`, [part.at]);
    if (!isScalar(value)) {
      const message = `invalid interpolation: non-concrete value ${formatValue(value)} (type ${typeName(value)})`;
      return kindOf(value) & (STRING | BYTES | NUMBER | BOOL) ? incomplete(message, [part.at]) : bottom(message, [part.at]);
    }
    if (value.t === 'string') text += expr.bytes ? Buffer.from(value.v, 'utf8').toString('latin1') : value.v;
    else if (value.t === 'bytes') text += expr.bytes ? value.v : bytesToString(value.v);
    else if (value.t === 'num') text += formatValue(value);
    else text += String(value.v);
  }
  from.ctx.limit('the interpolation', text.length, 'characters');
  from.ctx.chargeText(text.length);
  return { t: expr.bytes ? 'bytes' : 'string', v: text };
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as a string the way Go's strings.ToValidUTF8 makes it: each run of invalid bytes is one U+FFFD. */
function bytesToString(bytes: string): string {
  const buffer = Buffer.from(bytes, 'latin1');
  let text = '';
  let invalid = false;
  for (let i = 0; i < buffer.length;) {
    const lead = buffer[i];
    const size = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
    let char: string | undefined;
    try {
      char = size > 0 && i + size <= buffer.length ? STRICT_UTF8.decode(buffer.subarray(i, i + size)) : undefined;
    } catch {
      char = undefined;
    }
    if (char === undefined) {
      if (!invalid) text += '\uFFFD';
      invalid = true;
      i++;
    } else {
      text += char;
      invalid = false;
      i += size;
    }
  }
  return text;
}

function slice(expr: Extract<Expr, { type: 'slice' }>, env: Env, from: Vertex): Value {
  const target = evalExpr(expr.target, env, from);
  const bound = (part: Expr | undefined, fallback: number): number | Value => {
    if (!part) return fallback;
    const value = concrete(evalExpr(part, env, from), 'slice', part.at);
    if (isBottom(value)) return value;
    if (value.t !== 'num' || !value.int) return bottom(`cannot use ${formatValue(value)} (type ${typeName(value)}) as type int in slice index`, [part.at]);
    return value.v < 0 ? bottom('cannot convert negative number to uint64', [part.at]) : value.v;
  };
  if (target instanceof Vertex && target.isList) {
    const elements = target.elements();
    const low = bound(expr.low, 0);
    const high = bound(expr.high, elements.length);
    if (typeof low !== 'number') return low;
    if (typeof high !== 'number') return high;
    if (high > elements.length) return bottom(`index ${high} out of range`, [expr.at]);
    if (low > high) return bottom(`invalid slice index: ${low} > ${high}`, [expr.at]);
    return listOf(from, elements.slice(low, high).map(valueOf), env, expr.at);
  }
  if (isBottom(target)) return target;
  return bottom(`cannot slice ${formatValue(target)} (type ${typeName(target)})`, [expr.at]);
}

/** Where an expression begins (a selector's own position is its dot). */
export function startOf(expr: Expr): Position {
  switch (expr.type) {
    case 'selector':
    case 'index':
    case 'slice':
      return startOf(expr.target);
    case 'call':
      return startOf(expr.callee);
    case 'binary':
      return startOf(expr.left);
    default:
      return expr.at;
  }
}

function call(expr: Extract<Expr, { type: 'call' }>, env: Env, from: Vertex): Value {
  const callee = callable(evalExpr(expr.callee, env, from), expr.at);
  if (isBottom(callee)) return callee;
  const args = expr.args.map((arg) => unattached(evalExpr(arg, env, from)));
  return applyBuiltin(callee, args, startOf(expr), from, expr.args.map(startOf));
}

/** What a call calls: a builtin, or the builtin a validator stands for while it was written bare (CUE's CallExpr.evaluate). */
function callable(callee: Value, at: Position): Builtin | Bottom {
  if (isBottom(callee) || callee.t === 'builtin') return callee;
  const validator = callee.t === 'constraint' && callee.bounds.length === 0 && callee.validators.length === 1 ? callee.validators[0] : undefined;
  if (validator?.bare) return validator.bare;
  if (validator) return bottom(`cannot call previously called validator ${validator.text}`, [at]);
  return bottom(`cannot call non-function ${formatValue(callee)} (type ${typeName(callee)})`, [at]);
}

/** A builtin of one argument that validates (`list.UniqueItems`) written bare where a value is wanted: that validator, as if called without arguments. */
export function bareValidator(callee: Builtin, at: Position, from: Vertex): Value {
  const value = applyBuiltin(callee, [], at, from);
  return value.t === 'constraint' ? { ...value, validators: value.validators.map((validator) => ({ ...validator, bare: callee })) } : value;
}

/** A builtin called with all its arguments, or with one fewer as a validator of the value it is unified with. */
function applyBuiltin(callee: Builtin, args: readonly Value[], at: Position, from: Vertex, argAt: readonly Position[] = []): Value {
  const [min, max] = typeof callee.arity === 'number' ? [callee.arity, callee.arity] : callee.arity;
  if (callee.validator && args.length === min - 1) {
    const text = `${callee.name}(${args.map((arg) => formatValue(arg)).join(', ')})`;
    return constraint(
      validatorKinds(callee.name),
      [],
      [
        {
          text,
          name: callee.name,
          args,
          schemas: callee.schemas,
          kinds: validatorKinds(callee.name),
          at: [at, ...argAt],
          check: (value) => asCheck(callee.call([value, ...args], at, from)),
        },
      ],
      [at],
    );
  }
  if (args.length < min) return bottom(`not enough arguments in call to ${callee.name} (have ${args.length}, want ${min})`, [at]);
  if (args.length > max) return bottom(`too many arguments in call to ${callee.name} (have ${args.length}, want ${max})`, [at]);
  return callee.call(args, at, from);
}

function asCheck(result: Value): boolean | Bottom {
  if (result.t === 'bool') return result.v;
  if (isBottom(result)) return result;
  return bottom(`validator returned ${formatValue(result)}`);
}

function validatorKinds(name: string): number {
  if (name === 'matchN' || name === 'matchIf') return TOP_KINDS;
  if (name.startsWith('list.')) return 64;
  if (name.startsWith('struct.')) return STRUCT;
  if (name.startsWith('math.') || name === 'math.MultipleOf') return 12;
  return 48;
}

function unary(expr: Extract<Expr, { type: 'unary' }>, env: Env, from: Vertex): Value {
  const { op } = expr;
  if (op === '*') return evalExpr(expr.operand, env, from);
  const operand = evalExpr(expr.operand, env, from);
  if (op === '==') return operand;
  if (op !== '=~' && op !== '!~' && writtenType(expr.operand, operand))
    return bottom(`invalid operand ${formatValue(operand)} ('${op}' requires concrete value)`, [startOf(expr.operand)]);
  const value = concrete(operand, op, expr.at, op === '-' || op === '+' ? NUMBER : op === '!' ? BOOL : TOP_KINDS);
  // A bound's operand is named as written (CUE's BoundExpr): `>s` with `s: string`.
  if (isBottom(value) && value.code === 'incomplete' && op !== '-' && op !== '+' && op !== '!' && !isBottom(defaultOf(operand)))
    return incomplete(`non-concrete value ${sourceText(expr.operand) ?? formatValue(operand)} for bound ${op}`, [startOf(expr.operand)]);
  if (isBottom(value)) return value;
  switch (op) {
    case '-':
    case '+':
      if (value.t !== 'num') return bottom(`invalid operation ${op}${formatValue(value)} (${op} ${typeName(value)})`, [expr.at]);
      if (op === '+') return value;
      return value.literal === undefined
        ? { t: 'num', int: value.int, v: -value.v }
        : { t: 'num', int: value.int, v: -value.v, literal: value.literal.startsWith('-') ? value.literal.slice(1) : `-${value.literal}` };
    case '!':
      if (value.t !== 'bool') return bottom(`invalid operation !${formatValue(value)} (! ${typeName(value)})`, [expr.at]);
      return { t: 'bool', v: !value.v };
    case '=~':
    case '!~': {
      if (value.t !== 'string' && value.t !== 'bytes')
        return bottom(`cannot use ${formatValue(value)} (type ${typeName(value)}) as string in argument to ${op}`, [expr.at]);
      // CUE compiles the pattern when it matches a string: a pattern RE2 refuses is an error there, not here.
      const bound: Bound = { op, value, pattern: regexpOf(value.v), at: expr.at };
      return constraint(boundKinds(bound), [bound], [], [expr.at]);
    }
    default: {
      const bound: Bound = { op: op as Bound['op'], value, at: expr.at };
      if (op !== '!=' && value.t !== 'num' && value.t !== 'string' && value.t !== 'bytes')
        return bottom(`invalid operand ${formatValue(value)} to bound ${op}`, [expr.at]);
      return constraint(boundKinds(bound), [bound], [], [expr.at]);
    }
  }
}

/** An operand that is a type or bound as written (`!int`, `-<4`), never concrete (adt.AssertConcreteIsPossible). */
function writtenType(expr: Expr, value: Value): boolean {
  if (expr.type === 'paren') return writtenType(expr.expr, value);
  if (expr.type === 'unary') return expr.op !== '-' && expr.op !== '+' && expr.op !== '!' && expr.op !== '*';
  return expr.type === 'ident' && universe.get(expr.name) === value && value.t === 'constraint';
}

function isBottomLiteral(expr: Expr): boolean {
  return (expr.type === 'literal' && expr.kind === 'bottom') || (expr.type === 'paren' && isBottomLiteral(expr.expr));
}

function binary(expr: Extract<Expr, { type: 'binary' }>, env: Env, from: Vertex): Value {
  const { op } = expr;
  if (op === '|') {
    // Terms that are disjunctions by value (a reference to one) are flattened by the same rule as written ones.
    const terms = disjunctsOf(expr).map((term) => {
      const value = evalExpr(term.value, env, from);
      return {
        marked: term.isDefault,
        value,
        inner: value.t === 'disj' ? value.values.map((member, index) => ({ value: member, isDefault: value.defaults[index] })) : undefined,
      };
    });
    const members = combineDefaults(terms);
    return disjunction(
      members.map((member) => member.value),
      members.map((member) => member.isDefault),
    );
  }
  if (op === '&') {
    const vertex = new Vertex(from.ctx, from.label, from.parent);
    vertex.addConjunct({ expr, env, closed: false });
    return valueOf(vertex);
  }
  if ((op === '==' || op === '!=') && (isBottomLiteral(expr.left) || isBottomLiteral(expr.right))) {
    const failed = comparesToBottom(evalExpr(isBottomLiteral(expr.left) ? expr.right : expr.left, env, from));
    return { t: 'bool', v: op === '==' ? failed : !failed };
  }
  if (op === '&&' || op === '||') {
    const left = concrete(evalExpr(expr.left, env, from), op, expr.left.at, BOOL);
    if (isBottom(left)) return left;
    if (left.t !== 'bool') return bottom(`invalid operands ${formatValue(left)} to '${op}' (type ${typeName(left)})`, [expr.left.at]);
    const right = concrete(evalExpr(expr.right, env, from), op, expr.right.at, BOOL);
    if (isBottom(right)) return right;
    if (right.t !== 'bool') return bottom(`invalid operands ${formatValue(right)} to '${op}' (type ${typeName(right)})`, [expr.right.at]);
    return { t: 'bool', v: op === '&&' ? left.v && right.v : left.v || right.v };
  }
  const leftValue = defaultOf(evalExpr(expr.left, env, from));
  const rightValue = defaultOf(evalExpr(expr.right, env, from));
  if ((op === '==' || op === '!=') && (leftValue instanceof Vertex || rightValue instanceof Vertex)) {
    if (isBottom(leftValue)) return leftValue;
    if (isBottom(rightValue)) return rightValue;
    // A struct or list compared with a concrete value of another kind (null aside, which compares with anything) is an error, as in CUE.
    const kinds = [leftValue, rightValue].map((value) =>
      value instanceof Vertex ? (value.isList ? 'list' : 'struct') : isScalar(value) ? value.t : undefined,
    );
    if (kinds[0] !== undefined && kinds[1] !== undefined && kinds[0] !== kinds[1] && !kinds.includes('null'))
      return bottom(
        `invalid operands ${formatValue(leftValue)} and ${formatValue(rightValue)} to '${op}' (type ${typeName(leftValue)} and ${typeName(rightValue)})`,
        [expr.left.at, expr.right.at],
      );
    const equal = structurallyEqual(leftValue, rightValue);
    if (equal === undefined) {
      const side = structurallyEqual(leftValue, leftValue) === undefined ? 'left' : 'right';
      return incomplete(`invalid ${side}-hand value to '${op}' (type ${typeName(leftValue)})`, [startOf(expr)]);
    }
    return { t: 'bool', v: op === '==' ? equal : !equal };
  }
  // CUE v0.11 took list arithmetic out of the language (https://cuelang.org/e/v0.11-list-arithmetic).
  if (op === '+' && leftValue instanceof Vertex && rightValue instanceof Vertex && leftValue.isList && rightValue.isList) {
    return bottom('Addition of lists is superseded by list.Concat; see https://cuelang.org/e/v0.11-list-arithmetic', [expr.at]);
  }
  if (op === '*' && (leftValue instanceof Vertex || rightValue instanceof Vertex)) {
    const [list, times] = leftValue instanceof Vertex ? [leftValue, rightValue] : [rightValue as Vertex, leftValue];
    const count = concrete(times, '*', expr.at);
    if (isBottom(count)) return count;
    if (list.isList && count.t === 'num' && count.int)
      return bottom('Multiplication of lists is superseded by list.Repeat; see https://cuelang.org/e/v0.11-list-arithmetic', [expr.at]);
  }
  const left = concrete(leftValue, op, expr.left.at, operandKinds(op));
  const right = concrete(rightValue, op, expr.right.at, operandKinds(op));
  if (isBottom(left)) return left;
  if (isBottom(right)) return right;
  const size = textSize(op, left, right);
  if (size !== undefined) {
    from.ctx.limit(`the operator ${op}`, size, 'characters');
    from.ctx.chargeText(size);
  }
  return scalarOperation(op, left, right, expr.left.at, expr.right.at);
}

/** The length of the string or bytes a `+` or `*` makes (a count past CUE's own limit is its error, not this one). */
function textSize(op: string, left: Scalar, right: Scalar): number | undefined {
  const isText = (value: Scalar) => value.t === 'string' || value.t === 'bytes';
  if (op === '+' && isText(left) && left.t === right.t) return (left as { v: string }).v.length + (right as { v: string }).v.length;
  if (op !== '*') return undefined;
  const [text, count] = left.t === 'num' ? [right, left] : [left, right];
  if (!isText(text) || count.t !== 'num' || !count.int || count.v < 0 || count.v > MAX_REPEAT_COUNT) return undefined;
  return (text as { v: string }).v.length * count.v;
}

function invalidOperands(op: string, left: Scalar, right: Scalar, at: Position[]): Value {
  return bottom(`invalid operands ${formatValue(left)} and ${formatValue(right)} to '${op}' (type ${typeName(left)} and ${typeName(right)})`, at);
}

function scalarOperation(op: string, left: Scalar, right: Scalar, leftAt: Position, rightAt: Position): Value {
  const at = [leftAt, rightAt];
  switch (op) {
    case '==':
    case '!=': {
      const comparable = left.t === right.t || (left.t === 'num' && right.t === 'num') || left.t === 'null' || right.t === 'null';
      if (!comparable) return invalidOperands(op, left, right, at);
      const equal = left.t === right.t && scalarEquals(left, right);
      return { t: 'bool', v: op === '==' ? equal : !equal };
    }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const comparable =
        (left.t === 'num' && right.t === 'num') || (left.t === 'string' && right.t === 'string') || (left.t === 'bytes' && right.t === 'bytes');
      if (!comparable) return invalidOperands(op, left, right, at);
      return { t: 'bool', v: compareOrdered(op, (left as { v: number | string }).v, (right as { v: number | string }).v) };
    }
    case '=~':
    case '!~': {
      if (right.t !== 'string' && right.t !== 'bytes')
        return bottom(`cannot use ${formatValue(right)} (type ${typeName(right)}) as type ${kindName(STRING | BYTES)}`, at);
      if (left.t !== 'string') return bottom(`cannot use ${formatValue(left)} (type ${typeName(left)}) as type string in ${op}`, at);
      const pattern = regexpOf(right.v);
      if (pattern instanceof InvalidRegexp) return bottom(`invalid regexp: ${pattern.message}`, [leftAt]);
      const matches = pattern.test(left.v);
      return { t: 'bool', v: op === '=~' ? matches : !matches };
    }
    case '+':
      if (left.t === 'string' && right.t === 'string') return { t: 'string', v: left.v + right.v };
      if (left.t === 'bytes' && right.t === 'bytes') return { t: 'bytes', v: left.v + right.v };
      break;
    case '*': {
      const [text, count] = left.t === 'num' ? [right, left] : [left, right];
      if ((text.t === 'string' || text.t === 'bytes') && count.t === 'num' && count.int) return repeatText(text, count.v, at);
      break;
    }
  }
  if (left.t !== 'num' || right.t !== 'num' || !['+', '-', '*', '/'].includes(op)) return invalidOperands(op, left, right, at);
  if (op === '/') {
    if (right.v === 0) return bottom(left.v === 0 ? 'failed arithmetic: division undefined' : 'failed arithmetic: division by zero', [leftAt]);
    return { t: 'num', int: false, v: decimalArithmetic('/', left.v, right.v) };
  }
  return { t: 'num', int: left.int && right.int, v: decimalArithmetic(op as DecimalOp, left.v, right.v) };
}

/** Largest count of a string or bytes multiplication (adt.MaxRepeatCount). */
const MAX_REPEAT_COUNT = 1_000_000;

function repeatText(text: Extract<Scalar, { t: 'string' | 'bytes' }>, count: number, at: Position[]): Value {
  if (count < 0) return bottom('cannot convert negative number to uint64', at);
  if (count > MAX_REPEAT_COUNT)
    return bottom(`${text.t === 'string' ? 'string' : 'bytes'} multiplication count ${count} exceeds limit of ${MAX_REPEAT_COUNT}`, at);
  return { t: text.t, v: text.v.repeat(count) };
}

/** Equality of concrete values, structs and lists included; undefined when something is not concrete. */
export function structurallyEqual(a: Value, b: Value): boolean | undefined {
  const left = defaultOf(a);
  const right = defaultOf(b);
  if (isScalar(left) && isScalar(right)) return left.t === right.t && scalarEquals(left, right);
  if (left instanceof Vertex && right instanceof Vertex) {
    if (left.isList !== right.isList) return false;
    const leftArcs = left.isList ? left.elements() : left.regularArcs();
    const rightArcs = right.isList ? right.elements() : right.regularArcs();
    if (leftArcs.length !== rightArcs.length) return false;
    for (const arc of leftArcs) {
      const other = right.arcAt(arc.key);
      if (!other) return false;
      const equal = structurallyEqual(valueOf(arc), valueOf(other));
      if (equal !== true) return equal;
    }
    return true;
  }
  if (isScalar(left) || left instanceof Vertex) return isScalar(right) || right instanceof Vertex ? false : undefined;
  return undefined;
}

/** Whether a pattern constraint's label (`string`, `=~"^x"`, `"a" | "b"`) takes a field's label. */
export function patternMatcher(pattern: Pattern, vertex: Vertex): Value {
  pattern.matcher ??= evalExpr(pattern.label, pattern.env, vertex);
  return pattern.matcher;
}

export function labelMatches(pattern: Pattern, label: string, vertex: Vertex): boolean {
  const matcher = patternMatcher(pattern, vertex);
  if (matcher.t === 'top') return true;
  if (isBottom(matcher)) return false;
  return !isBottom(unifyScalars({ t: 'string', v: label }, matcher));
}
