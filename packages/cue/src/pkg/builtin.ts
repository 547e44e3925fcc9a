/**
 * The builtins of the native evaluator: the universe (types, len, close, and, or, div, mod, quo,
 * rem) and the packages policies use. docs/cue-policies.md lists what each package has; a package
 * of CUE's standard library that is not here sends the policy to the reference evaluator.
 */

import { Context } from '../evaluation/context';
import { defaultOf, valueOf } from '../evaluation/expressions';
import { listOf } from '../evaluation/lists';
import {
  BOOL,
  bottom,
  type Builtin,
  BYTES,
  formatValue,
  incomplete,
  INT,
  isBottom,
  isScalar,
  kindOf,
  LIST,
  NUMBER,
  type Package,
  type Scalar,
  STRING,
  STRUCT,
  TOP_KINDS,
  typeName,
  type Value,
} from '../evaluation/values';
import { Vertex } from '../evaluation/vertex';
import { parseExpression } from '../syntax/parser';
import type { Position } from '../syntax/scanner';

/**
 * `list`: its elements' values; `listValue`: the list itself (whether it is open). `concrete`: any
 * value CUE v0.4's CallCtxt.Value takes: a concrete scalar, a list or a struct (not their elements);
 * a type, bound or disjunction there is `non-concrete argument n`, incomplete.
 */
export type Param = 'string' | 'bytes' | 'int' | 'number' | 'bool' | 'list' | 'listValue' | 'struct' | 'any' | 'concrete' | 'strings' | 'numbers' | 'bigint';

export type Js = string | number | boolean | Value[] | Vertex | Value | string[] | number[] | bigint;

const PARAM_KINDS: Record<Param, number> = {
  string: STRING,
  bytes: BYTES | STRING,
  int: INT,
  number: NUMBER,
  bool: BOOL,
  list: LIST,
  listValue: LIST,
  struct: STRUCT,
  any: TOP_KINDS,
  concrete: TOP_KINDS,
  strings: STRING,
  numbers: NUMBER,
  bigint: INT,
};

export class ArgumentError {
  constructor(readonly value: Value) {}
}

const PARAM_NAMES: Partial<Record<Param, string>> = { strings: 'list', numbers: 'list', listValue: 'list', bigint: 'int' };

/** An element of a list of strings or numbers, with the messages of CUE's CallCtxt.StringList and DecimalList. */
function listElement(element: Value, kind: 'string' | 'number', index: number, position: number): string | number {
  if (isBottom(element)) throw new ArgumentError(element);
  if (kind === 'string' ? element.t === 'string' : element.t === 'num') return (element as { v: string | number }).v;
  const shown = formatValue(element);
  if ((kindOf(element) & PARAM_KINDS[kind]) === 0)
    throw new ArgumentError(
      bottom(`invalid list element ${index} in argument ${position} to call: cannot use value ${shown} (${typeName(element)}) as ${kind}`),
    );
  throw new ArgumentError(incomplete(`non-concrete value ${shown} for element ${index} of ${kind} list argument ${position}`));
}

/** An integer argument as a bigint: its digits when it carries them, else its double, which is then exact. */
function bigIntOf(value: { readonly v: number; readonly literal?: string }): bigint {
  if (value.literal !== undefined && /^-?[0-9]+$/.test(value.literal)) return BigInt(value.literal);
  if (!Number.isFinite(value.v)) throw new CallError(`integer ${value.v} is too large for the native evaluator`);
  return BigInt(Math.trunc(value.v));
}

/** A bigint as a CUE integer: one past 2^53 keeps its digits, so it shows and computes on exactly. */
export function integerOf(value: bigint): Scalar {
  const v = Number(value);
  return Number.isSafeInteger(v) ? { t: 'num', int: true, v } : { t: 'num', int: true, v, literal: value.toString() };
}

function argument(value: Value, param: Param, position: number, name: string): Js {
  const picked = defaultOf(value);
  if (isBottom(picked)) throw new ArgumentError(picked);
  if (param === 'any') return picked;
  if (param === 'concrete') {
    // An open list is not concrete there (`[...int]`); a struct is, whatever its fields.
    if (isScalar(picked) || (picked instanceof Vertex && !(picked.isList && picked.listOpen))) return picked;
    throw new ArgumentError(incomplete(`non-concrete argument ${position}`));
  }
  if (picked instanceof Vertex) {
    if ((param === 'list' || param === 'strings' || param === 'numbers') && picked.isList) {
      const elements = picked.elements().map((element) => defaultOf(valueOf(element)));
      if (param === 'list') return elements;
      return elements.map((element, index) => listElement(element, param === 'strings' ? 'string' : 'number', index, position)) as string[] | number[];
    }
    if ((param === 'struct' && picked.isStruct) || (param === 'listValue' && picked.isList)) return picked;
  }
  if (!isScalar(picked)) {
    if (picked instanceof Vertex)
      throw new ArgumentError(bottom(`cannot use ${formatValue(picked)} (type ${typeName(picked)}) as ${param} in argument ${position + 1} to ${name}`));
    // Incomplete while it could still become a value of the kind wanted; else it never will (CUE's Builtin.call).
    if ((kindOf(picked) & PARAM_KINDS[param]) === 0)
      throw new ArgumentError(
        bottom(`cannot use ${formatValue(picked)} (type ${typeName(picked)}) as ${PARAM_NAMES[param] ?? param} in argument ${position + 1} to ${name}`),
      );
    throw new ArgumentError(incomplete(`error in call to ${name}: non-concrete value ${formatValue(picked)}`));
  }
  const ok =
    (param === 'string' && picked.t === 'string') ||
    (param === 'bytes' && (picked.t === 'bytes' || picked.t === 'string')) ||
    ((param === 'int' || param === 'bigint') && picked.t === 'num' && picked.int) ||
    (param === 'number' && picked.t === 'num') ||
    (param === 'bool' && picked.t === 'bool');
  if (!ok)
    throw new ArgumentError(
      bottom(`cannot use ${formatValue(picked)} (type ${typeName(picked)}) as ${PARAM_NAMES[param] ?? param} in argument ${position + 1} to ${name}`),
    );
  return param === 'bigint' ? bigIntOf(picked as { v: number }) : (picked as { v: string | number | boolean }).v;
}

/** A JavaScript result as a CUE value (lists of scalars become list vertices). */
function toValue(result: unknown, from: Vertex, kind?: 'int' | 'float'): Value {
  if (result && typeof result === 'object' && 't' in (result as object)) return result as Value;
  if (typeof result === 'string') return { t: 'string', v: result };
  if (typeof result === 'boolean') return { t: 'bool', v: result };
  if (typeof result === 'number') return { t: 'num', int: kind ? kind === 'int' : Number.isInteger(result), v: result };
  if (result === null) return { t: 'null' };
  if (Array.isArray(result)) {
    return listOf(
      from,
      result.map((element) => toValue(element, from)),
      {},
    );
  }
  return bottom(`unexpected builtin result`);
}

export function fn(
  name: string,
  params: readonly Param[],
  impl: (args: Js[], from: Vertex, at: Position) => unknown,
  options: { validator?: boolean; optional?: number; returns?: 'int' | 'float' } = {},
): Builtin {
  const optional = options.optional ?? 0;
  return {
    t: 'builtin',
    name,
    arity: optional ? [params.length - optional, params.length] : params.length,
    validator: options.validator,
    call: (args, at, from) => {
      try {
        const values = args.map((arg, index) => argument(arg, params[index], index, name));
        const ctx = (from as Vertex).ctx;
        for (const value of values) chargeSize(ctx, value);
        const result = impl(values, from as Vertex, at);
        // What it made: refused past MAX_OUTPUT (those that could make much more check before they build), and charged.
        if (typeof result === 'string' || Array.isArray(result)) {
          ctx.limit(name, result.length, typeof result === 'string' ? 'characters' : 'elements');
          chargeSize(ctx, result as Js);
        }
        return toValue(result, from as Vertex, options.returns);
      } catch (error) {
        if (error instanceof ArgumentError) return error.value.t === 'bottom' && error.value.at.length === 0 ? { ...error.value, at: [at] } : error.value;
        if (error instanceof CallError) {
          const failed = bottom(`error in call to ${name}: ${error.message}`, [at]);
          // A validator's error is its reason: `invalid value "x" (does not satisfy time.Time): error in call to time.Time: ...`.
          return options.validator ? { ...failed, validation: true } : failed;
        }
        throw error;
      }
    },
  };
}

export class CallError extends Error {}

/** The steps reading or writing a string or list of a builtin takes: one a list element, one per CHARACTERS_PER_STEP characters. */
function chargeSize(ctx: Context, value: Js): void {
  if (typeof value === 'string') ctx.chargeText(value.length);
  else if (Array.isArray(value)) {
    ctx.charge(value.length);
    let characters = 0;
    for (const element of value) if (typeof element === 'string') characters += element.length;
    ctx.chargeText(characters);
  }
}

export const runes = (text: string) => [...text].length;

export const s = (value: Js) => value as string;
export const n = (value: Js) => value as number;

/** The structs a package declares in CUE, by package: pkg/list/sort.cue's comparers for list.Sort, open as CUE declares them. */
const PACKAGE_STRUCTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  list: {
    Comparer: '{T: _, x: T, y: T, less: bool}',
    Ascending: '{T: number | string, x: T, y: T, less: bool & x < y}',
    Descending: '{T: number | string, x: T, y: T, less: bool & x > y}',
  },
};

export function pkg(path: string, members: Builtin[]): Package {
  const prefix = `${path.split('/').pop()}.`;
  let made: ReadonlyMap<string, Value> | undefined;
  return {
    t: 'package',
    path,
    // Made on first use: a struct is a vertex, which cannot be made while the modules load.
    get members() {
      made ??= new Map<string, Value>([
        ...members.map((member): [string, Value] => [member.name.slice(prefix.length), member]),
        ...Object.entries(PACKAGE_STRUCTS[path] ?? {}).map(([name, source]): [string, Value] => [name, packageStruct(source)]),
      ]);
      return made;
    },
  };
}

/**
 * A struct a package declares (list.Ascending), evaluated alone once, in a context of its own: nothing
 * is added to it; what references it unifies its conjuncts where it is used.
 */
function packageStruct(source: string): Vertex {
  const vertex = new Vertex(new Context(Number.POSITIVE_INFINITY), '', undefined);
  vertex.addConjunct({ expr: parseExpression(source, { offset: 0, line: 0, column: 0 }), env: {}, closed: false });
  return vertex;
}
