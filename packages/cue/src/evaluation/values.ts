/**
 * The values of the native evaluator (spec.md, "Values"): scalars, non-concrete scalar constraints
 * (types, bounds, validators), disjunctions and errors. Structs and lists are vertices (vertex.ts).
 */
import type { InvalidRegexp, Regexp } from '../internal/re2';
import type { Position } from '../syntax/scanner';
import type { Vertex } from './vertex';

export const NULL = 1;

export const BOOL = 2;
export const INT = 4;

export const FLOAT = 8;
export const STRING = 16;

export const BYTES = 32;
export const LIST = 64;

export const STRUCT = 128;
export const NUMBER = INT | FLOAT;

const SCALAR = NULL | BOOL | NUMBER | STRING | BYTES;
export const TOP_KINDS = SCALAR | LIST | STRUCT;

export type ErrorCode = 'eval' | 'incomplete' | 'cycle' | 'structural-cycle' | 'user';

export interface Bottom {
  readonly t: 'bottom';
  readonly code: ErrorCode;
  readonly message: string;
  readonly at: readonly Position[];
  /** An empty disjunction's error: how many errors CUE counts it as within another (its own and those it lists). */
  readonly count?: number;
  /** A validator's reason for failing (CUE's pkg.ValidationError): the caller words it as `invalid value X (does not satisfy V): reason`. */
  readonly validation?: true;
  /** Where it arose when no field holds it there: a let's path (CUE prints `a.X: undefined field: b` wherever it is read). */
  readonly origin?: readonly string[];
}

export interface Bound {
  readonly op: '<' | '<=' | '>' | '>=' | '!=' | '=~' | '!~';
  readonly value: Scalar;
  /** `=~` / `!~`: the compiled expression, or RE2's refusal, which CUE reports only when a string is matched. */
  readonly pattern?: Regexp | InvalidRegexp;
  readonly at?: Position;
}

/** A builtin used as a constraint (`strings.MinRunes(3)`): holds when `check(value)` gives true. */
export interface Validator {
  /** As messages print it: arguments as formatValue shows them without evaluating anything. */
  readonly text: string;
  /** The builtin's name and its arguments after the first. */
  readonly name: string;
  readonly args: readonly Value[];
  /** Its arguments are schemas (matchN, matchIf): inspection prints them as such (`matchN(1, [{foo!: string}])`), messages leave them out. */
  readonly schemas?: boolean;
  /** The builtin written bare (`a: json.Valid`), which may still be called (`a("3")`, `a()`), as CUE's BuiltinValidator without Src. */
  readonly bare?: Builtin;
  readonly check: (value: Scalar | Vertex) => boolean | Bottom;
  readonly kinds: number;
  readonly at: readonly Position[];
}

export type Scalar =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  /** `literal`: a float as written (`2.00`, `1e2`), whose digits CUE keeps (apd.Decimal): shown `2.00`, `1E+2`. */
  | { readonly t: 'num'; readonly int: boolean; readonly v: number; readonly literal?: string }
  | { readonly t: 'string'; readonly v: string }
  | { readonly t: 'bytes'; readonly v: string };

/** What is known of a value that is not concrete: the kinds it may have, bounds and validators. */
export interface Constraint {
  readonly t: 'constraint';
  readonly kinds: number;
  readonly bounds: readonly Bound[];
  readonly validators: readonly Validator[];
  readonly at: readonly Position[];
}

export interface Top {
  readonly t: 'top';
}

export interface Disjunction {
  readonly t: 'disj';
  readonly values: readonly Value[];
  readonly defaults: readonly boolean[];
  /**
   * Made of marked disjunctions whose defaults did not meet (`(int | *4) & (int | *1)`): no member is a default,
   * and unified further it makes none (CUE's HasDefaults without NumDefaults, its members not-default).
   */
  readonly defaultsLost?: boolean;
}

export interface Builtin {
  readonly t: 'builtin';
  readonly name: string;
  /** Arguments after which the builtin is called; with one fewer and `validator`, it is a constraint. */
  readonly arity: number | [number, number];
  readonly validator?: boolean;
  /** Its arguments are schemas, not values (CUE's NonConcrete: matchN, matchIf). */
  readonly schemas?: boolean;
  readonly call: (args: readonly Value[], at: Position, from: Vertex) => Value;
}

export interface Package {
  readonly t: 'package';
  readonly path: string;
  readonly members: ReadonlyMap<string, Value>;
}

export type Value = Top | Bottom | Scalar | Constraint | Disjunction | Builtin | Package | Vertex;

/** A scalar carried as data with its kind and digits (a float `1.0`, bytes), which plain JSON values lose. */
export class DataScalar {
  constructor(readonly scalar: Scalar) {}
}

export const TOP: Top = { t: 'top' };

export const bottom = (message: string, at: readonly (Position | undefined)[] = [], code: ErrorCode = 'eval'): Bottom => ({
  t: 'bottom',
  code,
  message,
  at: at.filter((position): position is Position => position !== undefined),
});

/**
 * The same validator twice, checked once: the same text and the same struct and list arguments, whose text
 * cannot tell them apart (`matchN(1, [_])` for both `[{a!: int}]` and `[{b!: int}]` while not evaluated).
 */
export function sameValidator(a: Validator, b: Validator): boolean {
  return a.text === b.text && a.args.every((arg, index) => arg.t !== 'vertex' || arg === b.args[index]);
}

/** A validator's reason for failing; `incomplete` when the value may still change so that it holds. */
export const validationError = (reason: string, code: ErrorCode = 'eval'): Bottom => ({ ...bottom(reason, [], code), validation: true });

/**
 * A validator's failure as CUE words it (`invalid value 3 (does not satisfy strings.MinRunes(4))`), with the reason it gave;
 * matchN and matchIf by name alone.
 */
export function unsatisfied(shown: string, validator: Validator, verdict: false | Bottom, at: readonly Position[]): Bottom {
  const named = validator.schemas ? validator.name : validator.text;
  return bottom(`invalid value ${shown} (does not satisfy ${named})${verdict ? `: ${verdict.message}` : ''}`, at, verdict ? verdict.code : 'eval');
}

export const incomplete = (message: string, at: readonly (Position | undefined)[] = []): Bottom => bottom(message, at, 'incomplete');

export const isBottom = (value: Value): value is Bottom => value.t === 'bottom';

export const isScalar = (value: Value): value is Scalar =>
  value.t === 'null' || value.t === 'bool' || value.t === 'num' || value.t === 'string' || value.t === 'bytes';

export function kindOf(value: Value): number {
  switch (value.t) {
    case 'null':
      return NULL;
    case 'bool':
      return BOOL;
    case 'num':
      return value.int ? INT : FLOAT;
    case 'string':
      return STRING;
    case 'bytes':
      return BYTES;
    case 'constraint':
      return value.kinds;
    case 'vertex':
      return value.isList ? LIST : STRUCT;
    case 'disj':
      return value.values.reduce((kinds, member) => kinds | kindOf(member), 0);
    case 'bottom':
      return 0;
    default:
      return TOP_KINDS;
  }
}

const KIND_NAMES: ReadonlyArray<[number, string]> = [
  [TOP_KINDS, '_'],
  [NUMBER, 'number'],
  [NULL, 'null'],
  [BOOL, 'bool'],
  [INT, 'int'],
  [FLOAT, 'float'],
  [STRING, 'string'],
  [BYTES, 'bytes'],
  [LIST, 'list'],
  [STRUCT, 'struct'],
];

/** A kind set as CUE names it: `int`, `number`, `(int|string)`. */
export function kindName(kinds: number): string {
  const exact = KIND_NAMES.find(([mask]) => mask === kinds);
  if (exact) return exact[1];
  const names: string[] = [];
  let rest = kinds;
  if ((rest & NUMBER) === NUMBER) {
    names.push('number');
    rest &= ~NUMBER;
  }
  for (const [mask, name] of KIND_NAMES.slice(2)) if (mask !== NUMBER && (rest & mask) === mask) names.push(name);
  return names.length === 1 ? names[0] : `(${names.join('|')})`;
}

/** The kinds a bound implies. */
export function boundKinds(bound: Bound): number {
  if (bound.op === '=~' || bound.op === '!~') return STRING;
  // `!=` keeps to its value's kind (`!="a"` is a string), except `!=null`: any kind but null (CUE's BoundValue.Kind).
  if (bound.op === '!=') return bound.value.t === 'null' ? TOP_KINDS & ~NULL : bound.value.t === 'num' ? NUMBER : kindOf(bound.value);
  return bound.value.t === 'num' ? NUMBER : kindOf(bound.value);
}

export function formatNumber(value: { int: boolean; v: number; literal?: string }): string {
  if (value.literal !== undefined) return value.int ? value.literal : decimalText(value.literal);
  if (value.int) return Number.isSafeInteger(value.v) ? String(value.v) : BigInt(Math.trunc(value.v)).toString();
  if (!Number.isFinite(value.v)) return String(value.v);
  if (Number.isInteger(value.v) && Math.abs(value.v) < 1e21) return `${value.v}.0`;
  const text = String(value.v);
  return text.replace(/e([+-])/, 'E$1');
}

/**
 * A decimal literal as apd.Decimal prints it (the General Decimal Arithmetic's to-scientific-string):
 * its digits kept, plain while the exponent is not positive and the adjusted exponent is at least -6
 * (`2.00`, `0.001`), scientific otherwise (`1E+2`, `1.5E-7`).
 */
function decimalText(literal: string): string {
  const parts = /^([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$/.exec(literal);
  if (!parts) return literal;
  const [, sign, whole, fraction = '', power = '0'] = parts;
  const digits = `${whole}${fraction}`.replace(/^0+(?=.)/, '') || '0';
  const exponent = Number(power) - fraction.length;
  const adjusted = exponent + digits.length - 1;
  const negative = sign === '-' ? '-' : '';
  if (exponent <= 0 && adjusted >= -6) {
    if (exponent === 0) return `${negative}${digits}`;
    const point = digits.length + exponent;
    return point > 0 ? `${negative}${digits.slice(0, point)}.${digits.slice(point)}` : `${negative}0.${'0'.repeat(-point)}${digits}`;
  }
  return `${negative}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
}

const quote = (text: string): string => JSON.stringify(text);

const quoteBytes = (text: string): string => `'${JSON.stringify(text).slice(1, -1).replace(/'/g, "\\'").replace(/\\"/g, '"')}'`;

export function formatBound(bound: Bound): string {
  return `${bound.op}${formatValue(bound.value)}`;
}

/** A value as CUE prints it in messages (structs and lists compactly). */
export function formatValue(value: Value, depth = 0): string {
  switch (value.t) {
    case 'top':
      return '_';
    case 'bottom':
      return '_|_';
    case 'null':
      return 'null';
    case 'bool':
      return String(value.v);
    case 'num':
      return formatNumber(value);
    case 'string':
      return quote(value.v);
    case 'bytes':
      return quoteBytes(value.v);
    case 'constraint':
      return formatConstraint(value);
    case 'disj':
      return value.values.map((member, index) => `${value.defaults[index] ? '*' : ''}${formatValue(member, depth)}`).join(' | ');
    case 'builtin':
      return value.name;
    case 'package':
      return value.path;
    case 'vertex':
      return value.format(depth);
  }
}

export function formatConstraint(value: Constraint, validatorText: (validator: Validator) => string = (validator) => validator.text): string {
  const parts = [...value.bounds.map(formatBound), ...value.validators.map(validatorText)];
  const implied = value.bounds.reduce(
    (kinds, bound) => kinds & boundKinds(bound),
    value.validators.reduce((kinds, validator) => kinds & validator.kinds, TOP_KINDS),
  );
  if (parts.length === 0 || value.kinds !== implied) parts.push(kindName(value.kinds));
  return parts.join(' & ');
}

/**
 * Strings ordered as CUE orders them: by their UTF-8 bytes, which is the order of their code points. JavaScript's
 * `<` compares UTF-16 code units, where a code point past U+FFFF (a surrogate pair, D800-DFFF) sorts below
 * U+E000-U+FFFF: "😀" < "\uFF61" there, not in CUE. Bytes (one unit per byte) compare as they are.
 */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrder(x) - codePointOrder(y);
  }
  return a.length - b.length;
}

/** A UTF-16 unit moved so that surrogates sort above every other unit, as the code points they make do. */
const codePointOrder = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

type NumberValue = Extract<Scalar, { t: 'num' }>;

/**
 * The order of two numbers (-1, 0, 1; NaN when unordered). Integers past 2^53 carry their digits (`literal`: as
 * written in the policy, or as the descriptor's JSON writes them, which is what CUE reads) and compare exactly:
 * `18446744073709551616` is not the descriptor's 18446744073709552000, though both are the same double.
 */
function compareNumbers(a: NumberValue, b: NumberValue): number {
  if (a.int && b.int && (a.literal !== undefined || b.literal !== undefined) && Number.isFinite(a.v) && Number.isFinite(b.v)) {
    const [x, y] = [a.literal === undefined ? BigInt(a.v) : BigInt(a.literal), b.literal === undefined ? BigInt(b.v) : BigInt(b.literal)];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a.v < b.v ? -1 : a.v > b.v ? 1 : a.v === b.v ? 0 : NaN;
}

/** `<`, `<=`, `>`, `>=` on two numbers, or on two strings (or bytes) in CUE's order. */
export function compareOrdered(op: '<' | '<=' | '>' | '>=', x: number | string | NumberValue, y: number | string | NumberValue): boolean {
  const order =
    typeof x === 'object'
      ? compareNumbers(x, y as NumberValue)
      : typeof x === 'string' && typeof y === 'string'
        ? compareText(x, y)
        : (x as number) < (y as number)
          ? -1
          : (x as number) > (y as number)
            ? 1
            : x === y
              ? 0
              : NaN;
  return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
}

export function scalarEquals(a: Scalar, b: Scalar): boolean {
  if (a.t === 'num' && b.t === 'num') return a.literal === undefined && b.literal === undefined ? a.v === b.v : compareNumbers(a, b) === 0;
  if (a.t !== b.t) return false;
  return a.t === 'null' || (a as { v: unknown }).v === (b as { v: unknown }).v;
}

export function typeName(value: Value): string {
  return kindName(kindOf(value));
}
