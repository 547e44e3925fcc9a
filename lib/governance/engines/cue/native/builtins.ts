/**
 * The builtins of the native evaluator: the universe (types, len, close, and, or, div, mod, quo,
 * rem) and the packages policies use. docs/cue-policies.md lists what each package has; a package
 * of CUE's standard library that is not here sends the policy to the WebAssembly path.
 */
import { isIP } from 'node:net';

import { Context } from './context';
import { decimalArithmetic, DecimalError, isMultipleOf } from './decimal';
import { type Exported, exportValue, fromJson, fromYamlSource, isJson, NotConcrete, toJson, toYaml, yamlDocuments } from './encodings';
import { defaultOf, noteRead, structurallyEqual, valueOf } from './expressions';
import { bigIntOf, BITS, BitsError } from './math-bits';
import { parseExpression } from './parser';
import { InvalidRegexp, quoteMeta, type Regexp, regexpOf } from './regexps';
import { constraint, disjunction, kindConstraint, unifyScalars } from './scalars';
import type { Position } from './scanner';
import { formatBigInt, formatGoFloat, formattedLength, goQuote, NumberError, parseGoFloat, parseGoInt, parseGoUint } from './strconv';
import { durationError, isRfc3339 } from './times';
import { mapWordStarts, splitFields, toLower, toLowerRune, toTitleRune, toUpper, trimSpace } from './unicode';
import {
  BOOL,
  type Bottom,
  bottom,
  type Bound,
  type Builtin,
  BYTES,
  compareText,
  FLOAT,
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
  validationError,
  type Value,
} from './values';
import { firstError, listOf, Vertex, withAttached } from './vertex';

/** `list`: its elements' values; `listValue`: the list itself (whether it is open). */
type Param = 'string' | 'bytes' | 'int' | 'number' | 'bool' | 'list' | 'listValue' | 'struct' | 'any' | 'strings' | 'numbers' | 'bigint';
type Js = string | number | boolean | Value[] | Vertex | Value | string[] | number[] | bigint;

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
  strings: STRING,
  numbers: NUMBER,
  bigint: INT,
};

class ArgumentError {
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

function argument(value: Value, param: Param, position: number, name: string): Js {
  const picked = defaultOf(value);
  if (isBottom(picked)) throw new ArgumentError(picked);
  if (param === 'any') return picked;
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

function fn(
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
        if (error instanceof CallError || error instanceof BitsError) {
          const failed = bottom(`error in call to ${name}: ${error.message}`, [at]);
          // A validator's error is its reason: `invalid value "x" (does not satisfy time.Time): error in call to time.Time: ...`.
          return options.validator ? { ...failed, validation: true } : failed;
        }
        throw error;
      }
    },
  };
}

class CallError extends Error {}

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

/** CUE's limit on the count of list.Repeat and strings.Repeat (adt.MaxRepeatCount). */
const MAX_REPEAT_COUNT = 1_000_000;

const runes = (text: string) => [...text].length;
const s = (value: Js) => value as string;
const n = (value: Js) => value as number;

/** The structs a package declares in CUE, by package: pkg/list/sort.cue's comparers for list.Sort, open as CUE declares them. */
const PACKAGE_STRUCTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  list: {
    Comparer: '{T: _, x: T, y: T, less: bool}',
    Ascending: '{T: number | string, x: T, y: T, less: bool & x < y}',
    Descending: '{T: number | string, x: T, y: T, less: bool & x > y}',
  },
};

function pkg(path: string, members: Builtin[]): Package {
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

const strings = pkg('strings', [
  fn('strings.Contains', ['string', 'string'], ([a, b]) => s(a).includes(s(b)), { validator: true }),
  fn('strings.ContainsAny', ['string', 'string'], ([a, b]) => [...s(b)].some((c) => s(a).includes(c)), { validator: true }),
  fn('strings.HasPrefix', ['string', 'string'], ([a, b]) => s(a).startsWith(s(b)), { validator: true }),
  fn('strings.HasSuffix', ['string', 'string'], ([a, b]) => s(a).endsWith(s(b)), { validator: true }),
  fn('strings.MinRunes', ['string', 'int'], ([a, b]) => runes(s(a)) >= n(b), { validator: true }),
  fn('strings.MaxRunes', ['string', 'int'], ([a, b]) => runes(s(a)) <= n(b), { validator: true }),
  fn(
    'strings.Index',
    ['string', 'string'],
    ([a, b]) => Buffer.byteLength(s(a).slice(0, Math.max(0, s(a).indexOf(s(b))))) * (s(a).includes(s(b)) ? 1 : 0) - (s(a).includes(s(b)) ? 0 : 1),
    { returns: 'int' },
  ),
  fn('strings.LastIndex', ['string', 'string'], ([a, b]) => (s(a).includes(s(b)) ? Buffer.byteLength(s(a).slice(0, s(a).lastIndexOf(s(b)))) : -1), {
    returns: 'int',
  }),
  fn('strings.Count', ['string', 'string'], ([a, b]) => (s(b) === '' ? runes(s(a)) + 1 : s(a).split(s(b)).length - 1), { returns: 'int' }),
  fn('strings.Join', ['strings', 'string'], ([list, sep], from) => {
    const parts = list as string[];
    from.ctx.limit('strings.Join', parts.reduce((sum, part) => sum + part.length, 0) + Math.max(0, parts.length - 1) * s(sep).length, 'characters');
    return parts.join(s(sep));
  }),
  fn('strings.Split', ['string', 'string'], ([a, sep]) => (s(sep) === '' ? [...s(a)] : s(a).split(s(sep)))),
  fn('strings.SplitN', ['string', 'string', 'int'], ([a, sep, count]) => splitN(s(a), s(sep), n(count))),
  fn('strings.Fields', ['string'], ([a]) => splitFields(s(a))),
  fn('strings.Replace', ['string', 'string', 'string', 'int'], ([a, old, replacement, count], from) => replace(s(a), s(old), s(replacement), n(count), from)),
  fn('strings.ToUpper', ['string'], ([a]) => toUpper(s(a))),
  fn('strings.ToLower', ['string'], ([a]) => toLower(s(a))),
  fn('strings.ToTitle', ['string'], ([a]) => mapWordStarts(s(a), toTitleRune)),
  fn('strings.ToCamel', ['string'], ([a]) => mapWordStarts(s(a), toLowerRune)),
  fn('strings.TrimSpace', ['string'], ([a]) => trimSpace(s(a))),
  fn('strings.Trim', ['string', 'string'], ([a, cut]) => trimSet(trimSet(s(a), s(cut), true), s(cut), false)),
  fn('strings.TrimLeft', ['string', 'string'], ([a, cut]) => trimSet(s(a), s(cut), true)),
  fn('strings.TrimRight', ['string', 'string'], ([a, cut]) => trimSet(s(a), s(cut), false)),
  fn('strings.TrimPrefix', ['string', 'string'], ([a, prefix]) => (s(a).startsWith(s(prefix)) ? s(a).slice(s(prefix).length) : s(a))),
  fn('strings.TrimSuffix', ['string', 'string'], ([a, suffix]) => (s(suffix) !== '' && s(a).endsWith(s(suffix)) ? s(a).slice(0, -s(suffix).length) : s(a))),
  fn('strings.Repeat', ['string', 'int'], ([a, count], from) => {
    const times = repeatCount(n(count));
    from.ctx.limit('strings.Repeat', s(a).length * times, 'characters');
    return s(a).repeat(times);
  }),
  fn('strings.SliceRunes', ['string', 'int', 'int'], ([a, start, end]) => {
    const chars = [...s(a)];
    if (n(start) < 0 || n(start) > n(end) || n(end) > chars.length) throw new CallError('index out of range');
    return chars.slice(n(start), n(end)).join('');
  }),
  fn('strings.Runes', ['string'], ([a]) => [...s(a)].map((c) => c.codePointAt(0) as number)),
]);

/** Go's strings.SplitN: at most `count` parts (all when negative), the last the rest; an empty separator splits runes. */
function splitN(text: string, sep: string, count: number): string[] {
  if (count === 0) return [];
  const parts = sep === '' ? [...text] : text.split(sep);
  if (count < 0 || parts.length <= count) return parts;
  return [...parts.slice(0, count - 1), parts.slice(count - 1).join(sep)];
}

/**
 * Go's strings.Replace: the first `count` (all when negative) non-overlapping `old`, left to right; an empty `old`
 * matches before each rune and at the end (runes + 1 times). Refused before it is built when it would be too long.
 */
function replace(text: string, old: string, replacement: string, count: number, from: Vertex): string {
  if (old === replacement || count === 0) return text;
  if (old === '') {
    const chars = [...text];
    const times = count < 0 ? chars.length + 1 : Math.min(count, chars.length + 1);
    from.ctx.limit('strings.Replace', text.length + times * replacement.length, 'characters');
    return replacement + chars.slice(0, times - 1).join(replacement) + (times > 1 ? replacement : '') + chars.slice(times - 1).join('');
  }
  const found = text.split(old).length - 1;
  const times = count < 0 ? found : Math.min(count, found);
  if (times === 0) return text;
  from.ctx.limit('strings.Replace', text.length + times * (replacement.length - old.length), 'characters');
  const parts = text.split(old);
  return parts.slice(0, times + 1).join(replacement) + (times < found ? old + parts.slice(times + 1).join(old) : '');
}

function repeatCount(count: number): number {
  if (count < 0) throw new CallError('negative count');
  if (count > MAX_REPEAT_COUNT) throw new CallError(`count ${count} exceeds limit of ${MAX_REPEAT_COUNT}`);
  return count;
}

function trimSet(text: string, cut: string, left: boolean): string {
  const set = new Set(cut);
  const chars = [...text];
  if (left) {
    let i = 0;
    while (i < chars.length && set.has(chars[i])) i++;
    return chars.slice(i).join('');
  }
  let j = chars.length;
  while (j > 0 && set.has(chars[j - 1])) j--;
  return chars.slice(0, j).join('');
}

const numbers = (values: Js) => values as number[];

const list = pkg('list', [
  fn('list.Contains', ['list', 'any'], ([items, wanted]) => (items as Value[]).some((item) => structurallyEqual(item, wanted as Value) === true)),
  fn('list.Concat', ['list'], ([lists]) =>
    (lists as Value[]).flatMap((inner) => (inner instanceof Vertex && inner.isList ? inner.elements().map((element) => valueOf(element)) : [])),
  ),
  fn('list.Range', ['number', 'number', 'number'], ([start, limit, step], from) => range(n(start), n(limit), n(step), from)),
  fn('list.Sum', ['numbers'], ([values]) => numbers(values).reduce((a, b) => decimalArithmetic('+', a, b), 0)),
  fn('list.Product', ['numbers'], ([values]) => numbers(values).reduce((a, b) => decimalArithmetic('*', a, b), 1)),
  fn('list.Max', ['numbers'], ([values]) => {
    if (numbers(values).length === 0) throw new CallError('empty list');
    return Math.max(...numbers(values));
  }),
  fn('list.Min', ['numbers'], ([values]) => {
    if (numbers(values).length === 0) throw new CallError('empty list');
    return Math.min(...numbers(values));
  }),
  fn('list.Avg', ['numbers'], ([values]) => {
    if (numbers(values).length === 0) throw new CallError('empty list');
    return {
      t: 'num',
      int: false,
      v: decimalArithmetic(
        '/',
        numbers(values).reduce((a, b) => decimalArithmetic('+', a, b), 0),
        numbers(values).length,
      ),
    };
  }),
  fn('list.MinItems', ['listValue', 'int'], ([items, count]) => minItems(items as Vertex, n(count)), { validator: true }),
  fn(
    'list.MaxItems',
    ['listValue', 'int'],
    ([items, count]) => {
      const length = (items as Vertex).elements().length;
      return length <= n(count) || validationError(`len(list) > MaxItems(${n(count)}) (${length} > ${n(count)})`);
    },
    { validator: true },
  ),
  fn('list.UniqueItems', ['list'], ([items], from) => uniqueItems(items as Value[], from), { validator: true }),
  fn('list.Slice', ['list', 'int', 'int'], ([items, low, high]) => {
    const values = items as Value[];
    if (n(low) < 0) throw new CallError('negative index');
    if (n(low) > n(high)) throw new CallError(`invalid index: ${n(low)} > ${n(high)}`);
    if (n(high) > values.length) throw new CallError('slice bounds out of range');
    return values.slice(n(low), n(high));
  }),
  fn('list.Take', ['list', 'int'], ([items, count]) => {
    if (n(count) < 0) throw new CallError('negative index');
    return (items as Value[]).slice(0, n(count));
  }),
  fn('list.Drop', ['list', 'int'], ([items, count]) => {
    if (n(count) < 0) throw new CallError('negative index');
    return (items as Value[]).slice(n(count));
  }),
  fn('list.Reverse', ['list'], ([items]) => [...(items as Value[])].reverse()),
  fn('list.Repeat', ['list', 'int'], ([items, count], from) => {
    const times = repeatCount(n(count));
    from.ctx.limit('list.Repeat', (items as Value[]).length * times, 'elements');
    const out: Value[] = [];
    for (let i = 0; i < times; i++) out.push(...(items as Value[]));
    return out;
  }),
  fn('list.Sort', ['list', 'struct'], ([items, comparer], from) => sortValues(items as Value[], comparer as Vertex, from)),
  fn('list.SortStrings', ['strings'], ([values]) => [...(values as string[])].sort(compareText)),
  fn('list.IsSortedStrings', ['strings'], ([values]) => (values as string[]).every((value, i, all) => i === 0 || compareText(all[i - 1], value) <= 0)),
  fn('list.FlattenN', ['list', 'int'], ([items, depth]) => flatten(items as Value[], n(depth))),
]);

/**
 * list.UniqueItems: no two elements equal. Scalars are told apart by their value at once; structs and lists are
 * compared pairwise, each comparison a step of the budget (a descriptor's long list cannot hang the process).
 */
function uniqueItems(values: readonly Value[], from: Vertex): boolean {
  const seen = new Set<string>();
  const structured: Value[] = [];
  for (const value of values) {
    if (isScalar(value)) {
      const key = `${value.t === 'num' ? 'num' : value.t}:${value.t === 'null' ? '' : String(value.v)}`;
      if (seen.has(key)) return false;
      seen.add(key);
    } else if (value instanceof Vertex) {
      for (const other of structured) {
        from.ctx.step();
        if (structurallyEqual(value, other) === true) return false;
      }
      structured.push(value);
    }
  }
  return true;
}

/**
 * list.Range (pkg/list/math.go): from start while below limit (above, with a negative step), adding the step in
 * decimal; refused before it is built when it would be too long.
 */
function range(start: number, limit: number, step: number, from: Vertex): number[] {
  if (step === 0) throw new CallError('step must be non zero');
  if (step > 0 && start > limit) throw new CallError('end must be greater than start when step is positive');
  if (step < 0 && start < limit) throw new CallError('end must be less than start when step is negative');
  from.ctx.limit('list.Range', Math.ceil((limit - start) / step), 'elements');
  const out: number[] = [];
  for (let i = start; step > 0 ? i < limit : i > limit; i = decimalArithmetic('+', i, step)) out.push(i);
  return out;
}

/** list.MinItems (pkg/list): an open list may still get the items it lacks (incomplete), unless a descriptor made it. */
function minItems(items: Vertex, min: number): boolean | Bottom {
  const length = items.elements().length;
  if (length >= min) return true;
  return validationError(`len(list) < MinItems(${min}) (${length} < ${min})`, items.listOpen && !items.ctx.closedWorld ? 'incomplete' : 'eval');
}

/**
 * list.Sort: a stable sort by the comparer's `less`, evaluated for each pair in a copy of the
 * comparer with `x` and `y` unified with the two elements (pkg/list/sort.go).
 */
function sortValues(items: Value[], comparer: Vertex, from: Vertex): Value[] {
  if (!comparer.arcs.has('less')) throw new CallError('field not found: less');
  let failed: Value | undefined;
  const less = (x: Value, y: Value): boolean => {
    const copy = new Vertex(from.ctx, comparer.label, comparer.parent);
    for (const conjunct of comparer.conjuncts) copy.addConjunct(conjunct);
    copy.arc('x').addConjunct({ expr: { type: 'value', value: x }, env: {}, closed: false });
    copy.arc('y').addConjunct({ expr: { type: 'value', value: y }, env: {}, closed: false });
    copy.evaluate();
    const result = defaultOf(valueOf(copy.arc('less')));
    if (result.t === 'bool') return result.v;
    failed ??= isBottom(result) ? result : bottom(`cannot use ${formatValue(result)} (type ${typeName(result)}) as type bool`);
    return false;
  };
  const sorted = [...items].sort((x, y) => (less(x, y) ? -1 : less(y, x) ? 1 : 0));
  if (failed) throw new ArgumentError(failed);
  return sorted;
}

function flatten(values: Value[], depth: number): Value[] {
  return values.flatMap((value) =>
    depth !== 0 && value instanceof Vertex && value.isList
      ? flatten(
          value.elements().map((element) => valueOf(element)),
          depth - 1,
        )
      : [value],
  );
}

const float = (v: number): Value => ({ t: 'num', int: false, v });
const math = pkg('math', [
  fn('math.Abs', ['number'], ([x]) => Math.abs(n(x))),
  fn('math.Floor', ['number'], ([x]) => Math.floor(n(x)), { returns: 'int' }),
  fn('math.Ceil', ['number'], ([x]) => Math.ceil(n(x)), { returns: 'int' }),
  fn('math.Round', ['number'], ([x]) => Math.sign(n(x)) * Math.round(Math.abs(n(x))), { returns: 'int' }),
  fn('math.Trunc', ['number'], ([x]) => Math.trunc(n(x)), { returns: 'int' }),
  fn('math.Sqrt', ['number'], ([x]) => float(Math.sqrt(n(x)))),
  fn('math.Pow', ['number', 'number'], ([x, y]) => float(n(x) ** n(y))),
  fn('math.Log', ['number'], ([x]) => float(Math.log(n(x)))),
  fn('math.Log10', ['number'], ([x]) => float(Math.log10(n(x)))),
  fn('math.Max', ['number', 'number'], ([x, y]) => float(Math.max(n(x), n(y)))),
  fn('math.Min', ['number', 'number'], ([x, y]) => float(Math.min(n(x), n(y)))),
  fn(
    'math.MultipleOf',
    ['number', 'number'],
    ([x, y]) => {
      try {
        return isMultipleOf(n(x), n(y));
      } catch (error) {
        throw error instanceof DecimalError ? new CallError(error.message) : error;
      }
    },
    { validator: true },
  ),
]);

/** A pattern as Go's regexp.Compile gives it: RE2's refusal is the call's error (`error in call to regexp.Find: error parsing regexp: ...`). */
function compiledPattern(pattern: Js): Regexp {
  const compiled = regexpOf(s(pattern));
  if (compiled instanceof InvalidRegexp) throw new CallError(compiled.message);
  return compiled;
}

/** CUE's regexp package: nothing matched is the call's error. */
function matched<T>(result: T | undefined): T {
  if (result === undefined) throw new CallError('no match');
  return result;
}

/** A match's named groups as a struct, its fields in order as CUE turns a Go map into a struct. */
function namedGroups(groups: Record<string, string>, from: Vertex): Value {
  const sorted = Object.fromEntries(Object.entries(groups).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return fromJson(JSON.stringify(sorted), from) ?? bottom('unexpected builtin result');
}

const regexp = pkg('regexp', [
  fn('regexp.Match', ['string', 'string'], ([pattern, text]) => compiledPattern(pattern).test(s(text))),
  fn(
    'regexp.Valid',
    ['string'],
    // Valid returns Compile's error (pkg/regexp): the reason the validator gives, or the call's error.
    ([pattern], _from, at) => {
      const compiled = regexpOf(s(pattern));
      return compiled instanceof InvalidRegexp ? { ...validationError(`error in call to regexp.Valid: ${compiled.message}`), at: [at] } : true;
    },
    { validator: true },
  ),
  fn('regexp.Find', ['string', 'string'], ([pattern, text]) => matched(compiledPattern(pattern).find(s(text)))),
  fn('regexp.FindAll', ['string', 'string', 'int'], ([pattern, text, count]) => matched(compiledPattern(pattern).findAll(s(text), n(count)))),
  fn('regexp.FindSubmatch', ['string', 'string'], ([pattern, text]) => matched(compiledPattern(pattern).findSubmatch(s(text)))),
  fn('regexp.FindAllSubmatch', ['string', 'string', 'int'], ([pattern, text, count]) => matched(compiledPattern(pattern).findAllSubmatch(s(text), n(count)))),
  fn('regexp.FindNamedSubmatch', ['string', 'string'], ([pattern, text], from) => {
    const compiled = compiledPattern(pattern);
    return namedGroups(compiled.named(matched(compiled.findSubmatch(s(text)))), from);
  }),
  fn('regexp.FindAllNamedSubmatch', ['string', 'string', 'int'], ([pattern, text, count], from) => {
    const compiled = compiledPattern(pattern);
    return matched(compiled.findAllSubmatch(s(text), n(count))).map((groups) => namedGroups(compiled.named(groups), from));
  }),
  fn('regexp.ReplaceAll', ['string', 'string', 'string'], ([pattern, text, replacement], from) =>
    compiledPattern(pattern).replaceAll(s(text), s(replacement), (length) => from.ctx.limit('regexp.ReplaceAll', length, 'characters')),
  ),
  fn('regexp.ReplaceAllLiteral', ['string', 'string', 'string'], ([pattern, text, replacement], from) =>
    compiledPattern(pattern).replaceAllLiteral(s(text), s(replacement), (length) => from.ctx.limit('regexp.ReplaceAllLiteral', length, 'characters')),
  ),
  fn('regexp.QuoteMeta', ['string'], ([text]) => quoteMeta(s(text))),
]);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A Go strconv or math/big error as CUE reports it: `error in call to strconv.ParseInt: strconv.ParseInt: parsing "x": invalid syntax`. */
function goNumber<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw error instanceof NumberError ? new CallError(error.message) : error;
  }
}

const integer = (value: bigint): Value => ({ t: 'num', int: true, v: Number(value) });

/** FormatFloat's format (pkg/strconv): a string of one byte (`"f"`) or the byte's value (102), as CUE takes it today. */
function formatByte(format: Js, name: string): number {
  const value = format as Value;
  if (value.t === 'string') {
    if (Buffer.byteLength(value.v) !== 1) throw new CallError('expected single character string');
    return value.v.charCodeAt(0);
  }
  if (value.t === 'num' && value.int) {
    if (value.v < 0 || value.v > 255) throw new CallError(`format value ${formatValue(value)} out of range [0, 255]`);
    return value.v;
  }
  if (isScalar(value) || value instanceof Vertex) throw new CallError(`unexpected kind ${typeName(value)}`);
  throw new ArgumentError(incomplete(`error in call to ${name}: non-concrete value ${formatValue(value)}`));
}

const strconv = pkg('strconv', [
  fn('strconv.Atoi', ['string'], ([text]) => integer(goNumber(() => parseGoInt(s(text), 10, 0, 'Atoi')))),
  fn('strconv.ParseInt', ['string', 'int', 'int'], ([text, base, bits]) => integer(goNumber(() => parseGoInt(s(text), n(base), n(bits))))),
  fn('strconv.ParseUint', ['string', 'int', 'int'], ([text, base, bits]) => integer(goNumber(() => parseGoUint(s(text), n(base), n(bits))))),
  fn('strconv.ParseFloat', ['string', 'int'], ([text, bits]) => float(goNumber(() => parseGoFloat(s(text), n(bits))))),
  fn('strconv.ParseBool', ['string'], ([text]) => {
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s(text))) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s(text))) return false;
    throw new CallError(`strconv.ParseBool: parsing ${goQuote(s(text))}: invalid syntax`);
  }),
  fn('strconv.FormatInt', ['int', 'int'], ([value, base]) => goNumber(() => formatBigInt(BigInt(n(value)), n(base)))),
  fn('strconv.FormatUint', ['int', 'int'], ([value, base]) => goNumber(() => formatBigInt(BigInt(n(value)), n(base)))),
  fn('strconv.FormatFloat', ['number', 'any', 'int', 'int'], ([value, format, precision, bits], from) => {
    const letter = formatByte(format, 'strconv.FormatFloat');
    from.ctx.limit('strconv.FormatFloat', formattedLength(n(value), n(precision)), 'characters');
    return goNumber(() => formatGoFloat(n(value), letter, n(precision), n(bits)));
  }),
  fn('strconv.FormatBool', ['bool'], ([value]) => String(value)),
  fn('strconv.Itoa', ['int'], ([value]) => BigInt(n(value)).toString()),
  fn('strconv.Quote', ['string'], ([text]) => goQuote(s(text))),
  // A JSON string: CUE's literal.Unquote reads CUE's string syntax, which takes more (`'a'`, `\U0001F600`, `#"a"#`,
  // refused here: stricter), but not a lone surrogate.
  fn('strconv.Unquote', ['string'], ([text]) => {
    let unquoted: unknown;
    try {
      unquoted = JSON.parse(s(text));
    } catch {
      throw new CallError('invalid syntax');
    }
    if (typeof unquoted !== 'string') throw new CallError('invalid syntax');
    if (LONE_SURROGATE.test(unquoted)) throw new CallError('unmatched surrogate pair');
    return unquoted;
  }),
]);

const fields = (value: Js) => (value as Vertex).regularArcs().length;
const struct = pkg('struct', [
  fn('struct.MinFields', ['struct', 'int'], ([value, count]) => minFields(value as Vertex, n(count)), { validator: true }),
  fn(
    'struct.MaxFields',
    ['struct', 'int'],
    ([value, count]) => fields(value) <= n(count) || validationError(`len(fields) > MaxFields(${n(count)}) (${fields(value)} > ${n(count)})`),
    {
      validator: true,
    },
  ),
]);

/**
 * struct.MinFields (pkg/struct): a struct that may still get the fields it lacks (open, with patterns, or with
 * enough optional and required fields) fails incompletely, unless a descriptor made it.
 */
function minFields(object: Vertex, min: number): boolean | Bottom {
  const count = fields(object);
  if (count >= min) return true;
  const constraints = [...object.arcs.values()].filter((arc) => !arc.regular && !arc.definition && !arc.hidden).length;
  const mayGrow = !object.isClosed() || object.patterns.length > 0 || count + constraints >= min;
  return validationError(`len(fields) < MinFields(${min}) (${count} < ${min})`, mayGrow && !object.ctx.closedWorld ? 'incomplete' : 'eval');
}

const time = pkg('time', [
  fn(
    'time.Time',
    ['string'],
    ([text]) => {
      if (!isRfc3339(s(text))) throw new CallError(`invalid time ${goQuote(s(text))}`);
      return true;
    },
    { validator: true },
  ),
  fn(
    'time.Duration',
    ['string'],
    ([text]) => {
      const error = durationError(s(text));
      if (error) throw new CallError(error);
      return true;
    },
    { validator: true },
  ),
  fn(
    'time.Format',
    ['string', 'string'],
    ([text, layout]) => {
      if (s(layout) !== '2006-01-02T15:04:05Z07:00' && s(layout) !== '2006-01-02T15:04:05.999999999Z07:00')
        throw new CallError(`layout ${JSON.stringify(s(layout))} is not supported by the native evaluator`);
      if (!isRfc3339(s(text))) throw new CallError(`invalid time ${goQuote(s(text))}`);
      return true;
    },
    { validator: true },
  ),
]);

const FQDN = /^(?=.{1,253}\.?$)(?:(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.)*(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.?$/;
function cidr(text: string): boolean {
  const [address, bits, ...rest] = text.split('/');
  if (rest.length > 0 || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}
const net = pkg('net', [
  fn('net.IP', ['string'], ([text]) => isIP(s(text)) !== 0, { validator: true }),
  fn('net.IPv4', ['string'], ([text]) => isIP(s(text)) === 4, { validator: true }),
  fn('net.IPv6', ['string'], ([text]) => isIP(s(text)) === 6, { validator: true }),
  fn('net.IPCIDR', ['string'], ([text]) => cidr(s(text)), { validator: true }),
  fn('net.FQDN', ['string'], ([text]) => FQDN.test(s(text)), { validator: true }),
]);

/** A value exported as text, or the error saying why it is not concrete. */
function marshal(value: Js, write: (data: Exported) => string): string {
  try {
    return write(exportValue(value as Value));
  } catch (error) {
    if (error instanceof NotConcrete) throw new ArgumentError(error.error);
    throw error;
  }
}

function marshalStream(items: Js, write: (data: Exported) => string, separator: string): string {
  return (items as Value[]).map((item) => marshal(item, write)).join(separator);
}

function unmarshalJson(text: string, from: Vertex): Value {
  const value = fromJson(text, from);
  if (!value) throw new CallError('json: invalid JSON');
  return value;
}

function unmarshalYaml(text: string, from: Vertex): Value[] {
  const documents = yamlDocuments(text);
  if (documents instanceof Error) throw new CallError(documents.message);
  return documents.map((source) => fromYamlSource(source, from));
}

function unmarshalYamlOne(text: string, from: Vertex): Value {
  const documents = unmarshalYaml(text, from);
  if (documents.length > 1) throw new CallError('yaml: expected a single document');
  return documents[0] ?? { t: 'null' };
}

const json = pkg('encoding/json', [
  fn('json.Marshal', ['any'], ([value]) => marshal(value, toJson)),
  fn('json.MarshalStream', ['list'], ([items]) => marshalStream(items, (data) => `${toJson(data)}\n`, '')),
  fn('json.Unmarshal', ['bytes'], ([text], from) => unmarshalJson(s(text), from)),
  fn('json.Valid', ['bytes'], ([text]) => isJson(s(text)), { validator: true }),
  fn('json.Validate', ['bytes', 'any'], ([text, schema], from) => unifiesCleanly(unmarshalJson(s(text), from), schema as Value, from), { validator: true }),
]);

const yaml = pkg('encoding/yaml', [
  fn('yaml.Marshal', ['any'], ([value]) => marshal(value, toYaml)),
  fn('yaml.MarshalStream', ['list'], ([items]) => marshalStream(items, toYaml, '---\n')),
  fn('yaml.Unmarshal', ['bytes'], ([text], from) => unmarshalYamlOne(s(text), from)),
  fn('yaml.Validate', ['bytes', 'any'], ([text, schema], from) => unifiesCleanly(unmarshalYamlOne(s(text), from), schema as Value, from), { validator: true }),
]);

const bits = pkg(
  'math/bits',
  Object.entries(BITS).map(([name, member]) =>
    fn(`bits.${name}`, Array<Param>(member.arity).fill('bigint'), (args, from) => member.call(args as bigint[], from.ctx)),
  ),
);

/** The packages the native evaluator has. */
export const PACKAGES: ReadonlyMap<string, Package> = new Map(
  [strings, list, math, bits, regexp, strconv, struct, time, net, json, yaml].map((entry) => [entry.path, entry]),
);

/** CUE's standard library: importing one of these that PACKAGES lacks sends a policy to the WebAssembly path. */
export const CUE_STANDARD_LIBRARY = new Set([
  'crypto/ed25519',
  'crypto/hmac',
  'crypto/md5',
  'crypto/sha1',
  'crypto/sha256',
  'crypto/sha512',
  'encoding/base64',
  'encoding/csv',
  'encoding/hex',
  'encoding/json',
  'encoding/toml',
  'encoding/yaml',
  'errors',
  'html',
  'list',
  'math',
  'math/bits',
  'net',
  'path',
  'regexp',
  'strconv',
  'strings',
  'struct',
  'text/tabwriter',
  'text/template',
  'time',
  'tool',
  'tool/cli',
  'tool/exec',
  'tool/file',
  'tool/http',
  'tool/os',
  'uuid',
]);

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

let unifyingUnfinished = false;

/** A finalized value as data (defaults taken), or undefined when something in it is not concrete. */
function finalized(value: Value, depth = 0): unknown {
  const picked = defaultOf(value);
  if (picked instanceof Vertex) {
    if (depth > picked.ctx.maxDepth) return undefined;
    const parts = picked.isList ? picked.elements() : picked.regularArcs();
    const values = parts.map((part) => finalized(part.evaluate() === part ? part : part.value, depth + 1));
    if (values.some((part) => part === undefined)) return undefined;
    return picked.isList ? values : Object.fromEntries(parts.map((part, index) => [part.label, values[index]]));
  }
  if (!isScalar(picked)) return undefined;
  return picked.t === 'null' ? null : picked.v;
}

/**
 * Why a value and a schema do not unify, or undefined when they do: a conflict first, then a required
 * field missing, and with `final` (matchN and matchIf, as CUE's Validate with finalCfg) an incomplete
 * error too. The value is taken finalized, as data: unifying the vertex itself would run the validator
 * being checked again.
 */
function unificationError(value: Value, schema: Value, from: Vertex, final: boolean): Bottom | undefined {
  const picked = defaultOf(value);
  if (!(picked instanceof Vertex) && !(schema instanceof Vertex)) {
    const unified = unifyScalars(picked, schema);
    return isBottom(unified) ? unified : undefined;
  }
  const data = finalized(picked);
  // A value not yet concrete is unified as it is, once: within that, its own validator cannot decide (incomplete).
  if (data === undefined && unifyingUnfinished) return undefined;
  const both = new Vertex(from.ctx, from.label, from.parent);
  both.addConjunct({ expr: data === undefined ? { type: 'value', value: picked } : { type: 'data', value: data }, env: {}, closed: false });
  both.addConjunct({ expr: { type: 'value', value: schema }, env: {}, closed: false });
  unifyingUnfinished = data === undefined;
  try {
    return firstError(both) ?? unfinished(both, final, 0);
  } finally {
    unifyingUnfinished = false;
  }
}

/** Below a unification without conflicts: a required field missing, or with `final` an incomplete error. */
function unfinished(vertex: Vertex, final: boolean, depth: number): Bottom | undefined {
  const value = vertex.evaluate();
  if (isBottom(value)) return final ? value : undefined;
  if (value !== vertex || depth >= vertex.ctx.maxDepth) return undefined;
  for (const arc of vertex.arcs.values()) {
    if (!arc.regular && arc.required) return incomplete(`${arc.label}: field is required but not present`);
    const error = arc.regular ? unfinished(arc, final, depth + 1) : undefined;
    if (error) return error;
  }
  return undefined;
}

const unifiesCleanly = (value: Value, schema: Value, from: Vertex): boolean => unificationError(value, schema, from, false) === undefined;

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
