/**
 * Expressions (spec.md, "Expressions"): references resolved through the scopes they were written
 * in, operators, bounds, interpolation, calls of builtins.
 */
import { BeyondNative } from '../internal/beyond-native';
import type { Expr } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { call } from './calls';
import { type Env, type Pattern } from './conjuncts';
import { listOf } from './lists';
import { binary, concrete, unary } from './operators';
import { noteRead, resolveReference } from './references';
import { unifyScalars } from './scalars';
import {
  BOOL,
  bottom,
  BYTES,
  formatValue,
  incomplete,
  isBottom,
  isScalar,
  kindOf,
  NUMBER,
  type Scalar,
  scalarEquals,
  STRING,
  typeName,
  type Value,
} from './values';
import { Vertex } from './vertex';

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
export const unattached = (value: Value): Value => (value instanceof Vertex ? value.evaluate() : value);

export function defaultOf(value: Value): Value {
  if (value.t !== 'disj') return value;
  const defaults = value.values.filter((_, index) => value.defaults[index]);
  return defaults.length === 1 ? defaults[0] : value;
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

/** A number literal as a double; one a double cannot hold (`1e309`, `1e-400`) is only CUE's to judge. */
function parseNumber(text: string, kind: 'int' | 'float'): Extract<Scalar, { t: 'num' }> {
  const parsed = parseDouble(text, kind);
  if (!Number.isFinite(parsed.v) || (parsed.v === 0 && /[1-9]/.test(text.split(/[eE]/)[0].replace(/^0[xob]/i, '')))) {
    throw new BeyondNative(`the number ${text} is past what a double holds`);
  }
  return parsed;
}

function parseDouble(text: string, kind: 'int' | 'float'): Extract<Scalar, { t: 'num' }> {
  const clean = text.replace(/_/g, '');
  const suffix = /(Ki|Mi|Gi|Ti|Pi|K|M|G|T|P)$/.exec(clean);
  if (suffix) return { t: 'num', int: true, v: Math.round(Number(clean.slice(0, -suffix[1].length)) * MULTIPLIERS[suffix[1]]) };
  if (kind === 'float') return { t: 'num', int: false, v: Number(clean), literal: clean };
  if (/^0o/i.test(clean)) return { t: 'num', int: true, v: parseInt(clean.slice(2), 8) };
  if (/^0[0-7]+$/.test(clean)) return { t: 'num', int: true, v: parseInt(clean.slice(1), 8) };
  const value = Number(clean);
  // Past 2^53 a double is not the integer written: its digits are kept, and it compares exactly (compareNumbers).
  return Number.isSafeInteger(value) || !Number.isFinite(value)
    ? { t: 'num', int: true, v: value }
    : { t: 'num', int: true, v: value, literal: BigInt(clean).toString() };
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

/**
 * Equality of concrete values, structs and lists included; undefined when something is not concrete.
 * `kinds`: an int and a float are never equal (`1` and `1.0`), as CUE's Value.Equals holds them in
 * list.Contains and list.UniqueItems.
 */
export function structurallyEqual(a: Value, b: Value, kinds = false): boolean | undefined {
  const left = defaultOf(a);
  const right = defaultOf(b);
  if (isScalar(left) && isScalar(right))
    return left.t === right.t && scalarEquals(left, right) && (!kinds || left.t !== 'num' || right.t !== 'num' || left.int === right.int);
  if (left instanceof Vertex && right instanceof Vertex) {
    if (left.isList !== right.isList) return false;
    const leftArcs = left.isList ? left.elements() : left.regularArcs();
    const rightArcs = right.isList ? right.elements() : right.regularArcs();
    if (leftArcs.length !== rightArcs.length) return false;
    for (const arc of leftArcs) {
      const other = right.arcAt(arc.key);
      if (!other) return false;
      const equal = structurallyEqual(valueOf(arc), valueOf(other), kinds);
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
