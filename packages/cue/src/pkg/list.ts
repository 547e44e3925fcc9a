import { defaultOf, structurallyEqual, valueOf } from '../evaluation/expressions';
import { type Bottom, bottom, compareText, formatValue, isBottom, isScalar, typeName, validationError, type Value } from '../evaluation/values';
import { Vertex } from '../evaluation/vertex';
import { decimalArithmetic } from '../internal/decimal';
import { ArgumentError, CallError, fn, type Js, n, pkg } from './builtin';
import { repeatCount } from './strings';

const numbers = (values: Js) => values as number[];

export const list = pkg('list', [
  fn('list.Contains', ['list', 'concrete'], ([items, wanted]) => (items as Value[]).some((item) => structurallyEqual(item, wanted as Value, true) === true)),
  fn('list.Concat', ['list'], ([lists]) =>
    (lists as Value[]).flatMap((inner) => {
      if (inner instanceof Vertex && inner.isList) return inner.elements().map((element) => valueOf(element));
      throw new CallError(`cannot use value ${formatValue(inner)} (type ${typeName(inner)}) as list`);
    }),
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
    // A decimal result: an int when it is whole, as CUE converts it.
    return decimalArithmetic(
      '/',
      numbers(values).reduce((a, b) => decimalArithmetic('+', a, b), 0),
      numbers(values).length,
    );
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
      const key = `${value.t === 'num' ? `num:${value.int}` : value.t}:${value.t === 'null' ? '' : String(value.v)}`;
      if (seen.has(key)) return false;
      seen.add(key);
    } else if (value instanceof Vertex) {
      for (const other of structured) {
        from.ctx.step();
        if (structurallyEqual(value, other, true) === true) return false;
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
