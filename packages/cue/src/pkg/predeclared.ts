import { defaultOf, valueOf } from '../evaluation/expressions';
import { noteRead } from '../evaluation/references';
import { constraint, disjunction, kindConstraint, unifyScalars } from '../evaluation/scalars';
import { unificationError } from '../evaluation/validate';
import {
  BOOL,
  bottom,
  type Bound,
  type Builtin,
  BYTES,
  FLOAT,
  formatValue,
  incomplete,
  INT,
  isBottom,
  isScalar,
  kindOf,
  LIST,
  NUMBER,
  type Scalar,
  STRING,
  STRUCT,
  typeName,
  validationError,
  type Value,
} from '../evaluation/values';
import { Vertex, withAttached } from '../evaluation/vertex';
import { CallError, fn, n } from './builtin';

/**
 * One limit of a predeclared type (internal/core/compile/predeclared.go), shown as CUE shows it. A limit a double
 * cannot hold (`int64`'s 2^63-1, `float32`'s largest float) is compared as the nearest double inside the range: a
 * number just past it, which a double rounds onto the limit (9223372036854775808 is 2^63, as 9223372036854775807
 * is), is refused as CUE refuses it, at the cost of refusing the limit itself too.
 */
function limitOf(text: string, int: boolean, lower: boolean): Bound {
  const nearest = Number(text);
  const exact = int ? BigInt(nearest) === BigInt(text) : text === '0';
  const inside = exact ? nearest : lower ? nextDouble(nearest, 1) : nextDouble(nearest, -1);
  const value: Scalar = exact && int ? { t: 'num', int, v: inside } : { t: 'num', int, v: inside, literal: text };
  return { op: lower ? '>=' : '<=', value };
}

/** The double next to `value` towards +Infinity (`direction` 1) or -Infinity (-1). */
function nextDouble(value: number, direction: 1 | -1): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  view.setBigUint64(0, value > 0 === direction > 0 ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

function integerType(min: string, max: string): Value {
  return constraint(INT, [limitOf(min, true, true), limitOf(max, true, false)]);
}

/** `float32` and `float64` are bounds alone: any number in their range, integers too. */
function floatType(min: string, max: string): Value {
  return constraint(NUMBER, [limitOf(min, false, true), limitOf(max, false, false)]);
}

/** CUE's div and mod are Euclidean: the modulus is never negative. */
const euclideanMod = (x: number, y: number) => ((x % Math.abs(y)) + Math.abs(y)) % Math.abs(y);

function intOperation(name: string, operation: (x: number, y: number) => number): Builtin {
  return fn(
    name,
    ['int', 'int'],
    ([x, y]) => {
      if (n(y) === 0) throw new CallError('division by zero');
      return operation(n(x), n(y));
    },
    { returns: 'int' },
  );
}

const close: Builtin = {
  t: 'builtin',
  name: 'close',
  arity: 1,
  call: ([value], _at, from) => {
    const target = defaultOf(value);
    if (!(target instanceof Vertex) || !target.isStruct) return isBottom(target) ? target : bottom(`struct argument must be concrete`);
    // It closes one level only (`close({a: b: int}) & {a: c: int}` allows a.c): sealed, not a closed conjunct.
    const closed = new Vertex(from.ctx, from.label, from.parent);
    closed.addConjunct({ expr: { type: 'value', value: target }, env: {}, closed: false });
    closed.sealed = true;
    return valueOf(closed);
  },
};

const lenBuiltin: Builtin = {
  t: 'builtin',
  name: 'len',
  arity: 1,
  call: ([value], at) => {
    const target = defaultOf(value);
    if (isBottom(target)) return target;
    if (target instanceof Vertex) return { t: 'num', int: true, v: target.isList ? target.elements().length : target.regularArcs().length };
    if (target.t === 'string') return { t: 'num', int: true, v: Buffer.byteLength(target.v) };
    if (target.t === 'bytes') return { t: 'num', int: true, v: Buffer.byteLength(target.v, 'latin1') };
    if (!isScalar(target)) {
      // A value of no kind len takes (`int`) is wrong whatever it becomes: a conflict, as CUE says, not an incomplete value.
      if ((kindOf(target) & (STRING | BYTES | LIST | STRUCT)) === 0)
        return bottom(`cannot use ${formatValue(target)} (type ${typeName(target)}) as (string|bytes|list|struct) in argument 1 to len`, [at]);
      return incomplete(`len of a value that is not concrete: ${formatValue(target)}`, [at]);
    }
    return bottom(`invalid argument ${formatValue(target)} (type ${typeName(target)}) for len`, [at]);
  },
};

/** An element of and's or or's list, or and's result, as read: a scalar keeps the definitions embedded with it (`{2, #x: 1}`). */
function readWithDefinitions(element: Vertex): Value {
  noteRead(element);
  return withAttached(element);
}

const and: Builtin = {
  t: 'builtin',
  name: 'and',
  arity: 1,
  call: ([value], at, from) => {
    const target = defaultOf(value);
    if (!(target instanceof Vertex) || !target.isList) return isBottom(target) ? target : bottom('and: argument must be a list', [at]);
    const result = new Vertex(from.ctx, from.label, from.parent);
    for (const element of target.elements()) result.addConjunct({ expr: { type: 'value', value: readWithDefinitions(element) }, env: {}, closed: false });
    return readWithDefinitions(result);
  },
};

const or: Builtin = {
  t: 'builtin',
  name: 'or',
  arity: 1,
  call: ([value], at) => {
    const target = defaultOf(value);
    // A list not known yet: CUE calls or() with the elements it has so far, and fails the call (`error in call to or`).
    if (isBottom(target) && target.code === 'incomplete') return bottom(`error in call to or: ${target.message}`, [at], 'incomplete');
    if (!(target instanceof Vertex) || !target.isList) return isBottom(target) ? target : bottom('or: argument must be a list', [at]);
    const elements = target.elements().map(readWithDefinitions);
    if (elements.length === 0) return bottom('empty list in call to or', [at], 'incomplete');
    return disjunction(
      elements,
      elements.map(() => false),
    );
  },
};

/**
 * CUE's checkNum: whether schemas that failed only incompletely could still bring the count to the
 * bound (a number between the matches and the possible matches, a single bound allowing some of
 * them; anything else, in doubt, could).
 */
function couldStillMatch(bound: Value, matched: number, possible: number): boolean {
  if (bound.t === 'num') return bound.v > matched && bound.v <= possible;
  if (bound.t !== 'constraint' || bound.bounds.length !== 1 || bound.validators.length > 0) return true;
  const range = constraint(INT, [
    { op: '>=', value: { t: 'num', int: true, v: matched } },
    { op: '<=', value: { t: 'num', int: true, v: possible } },
  ]);
  return !isBottom(unifyScalars(bound, range));
}

const schemasOf = (list: Value): Value[] | undefined =>
  list instanceof Vertex && list.isList ? list.elements().map((element) => valueOf(element)) : undefined;
const matchN: Builtin = {
  t: 'builtin',
  name: 'matchN',
  arity: 3,
  validator: true,
  schemas: true,
  call: ([value, count, list], at, from) => {
    const schemas = schemasOf(defaultOf(list));
    if (!schemas) return bottom('matchN: the second argument must be a list of schemas', [at]);
    const errors = schemas.map((schema) => unificationError(value, schema, from, true));
    const matched = errors.filter((error) => !error).length;
    const bound = defaultOf(count);
    if (!isBottom(unifyScalars({ t: 'num', int: true, v: matched }, bound))) return { t: 'bool', v: true };
    const possible = matched + errors.filter((error) => error?.code === 'incomplete').length;
    const code = couldStillMatch(bound, matched, possible) && !from.ctx.closedWorld ? 'incomplete' : 'eval';
    return validationError(`${matched} matched, expected ${formatValue(bound)}`, code);
  },
};

const matchIf: Builtin = {
  t: 'builtin',
  name: 'matchIf',
  arity: 4,
  validator: true,
  schemas: true,
  // It fails with the error of the schema it chose (`conflicting values 5 and 6`), as CUE's does.
  call: ([value, condition, then, otherwise], _at, from) => {
    const chosen = unificationError(value, condition, from, true) ? otherwise : then;
    const error = unificationError(value, chosen, from, true);
    return error ? validationError(error.message, from.ctx.closedWorld ? 'eval' : error.code) : { t: 'bool', v: true };
  },
};

/** CUE's predeclared identifiers (spec.md, "Predeclared identifiers"): no `list`, `struct` or `byte`, which CUE does not know either. */
export const universe: ReadonlyMap<string, Value> = new Map<string, Value>([
  ['int', kindConstraint(INT)],
  ['float', kindConstraint(FLOAT)],
  ['number', kindConstraint(NUMBER)],
  ['string', kindConstraint(STRING)],
  ['bytes', kindConstraint(BYTES)],
  ['bool', kindConstraint(BOOL)],
  ['null', { t: 'null' }],
  ['rune', integerType('0', '1114111')],
  ['int8', integerType('-128', '127')],
  ['int16', integerType('-32768', '32767')],
  ['int32', integerType('-2147483648', '2147483647')],
  ['int64', integerType('-9223372036854775808', '9223372036854775807')],
  ['int128', integerType('-170141183460469231731687303715884105728', '170141183460469231731687303715884105727')],
  ['uint', constraint(INT, [{ op: '>=', value: { t: 'num', int: true, v: 0 } }])],
  ['uint8', integerType('0', '255')],
  ['uint16', integerType('0', '65535')],
  ['uint32', integerType('0', '4294967295')],
  ['uint64', integerType('0', '18446744073709551615')],
  ['uint128', integerType('0', '340282366920938463463374607431768211455')],
  // 2**127 * (2**24 - 1) / 2**23 and 2**1023 * (2**53 - 1) / 2**52, as CUE writes them. There is no `byte`.
  ['float32', floatType('-340282346638528859811704183484516925440', '340282346638528859811704183484516925440')],
  ['float64', floatType('-1.797693134862315708145274237317043567981e+308', '1.797693134862315708145274237317043567981e+308')],
  ['len', lenBuiltin],
  ['close', close],
  ['and', and],
  ['or', or],
  ['matchN', matchN],
  ['matchIf', matchIf],
  ['div', intOperation('div', (x, y) => (x - euclideanMod(x, y)) / y)],
  ['mod', intOperation('mod', euclideanMod)],
  ['quo', intOperation('quo', (x, y) => Math.trunc(x / y))],
  ['rem', intOperation('rem', (x, y) => x % y)],
]);
