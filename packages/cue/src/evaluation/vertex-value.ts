/** What a vertex's conjuncts made, once added: a struct, a list or a scalar, the conflict between them, or the error it holds or read. */
import type { Bottom } from './values';
import { bottom, type Bound, formatValue, isBottom, isScalar, kindName, kindOf, LIST, STRUCT, unsatisfied, type Value } from './values';
import type { Vertex } from './vertex';

/** `!=null`, the one bound a struct or list satisfies (it is never null). */
const excludesOnlyNull = (bound: Bound): boolean => bound.op === '!=' && bound.value.t === 'null';

/** Cycle errors through a field with a bound (`c: a + b & >=5`): incomplete once read from outside the cycle, as in CUE. */
export const partialCycles = new WeakSet<Bottom>();

export function ownValue(vertex: Vertex): Value {
  // A structural cycle into a field that is no struct is that conflict first (`x: #X & Y` with `#X: int`, as CUE reports it).
  if (vertex.error?.code === 'structural-cycle' && isBottom(shape(vertex))) return shape(vertex);
  if (vertex.error && vertex.error.code !== 'incomplete' && vertex.error.code !== 'cycle') return vertex.error;
  const value = shape(vertex);
  if (isBottom(value)) return value;
  if (vertex.inherited && vertex.inherited.code !== 'incomplete' && vertex.inherited.code !== 'cycle') return vertex.inherited;
  // A cycle through a field still being evaluated leaves a concrete value standing (revisitLater).
  if (vertex.inherited?.code === 'cycle' && !vertex.error && isScalar(value)) return value;
  if (vertex.inherited?.code === 'cycle' && !vertex.error && value.t === 'constraint') {
    const partial = { ...vertex.inherited, message: `non-concrete value ${formatValue(value)} in a cycle` };
    partialCycles.add(partial);
    return partial;
  }
  return vertex.error ?? vertex.inherited ?? value;
}

/** What the conjuncts make: a struct, a list or a scalar, or the conflict between them. */
function shape(vertex: Vertex): Value {
  if (vertex.isStruct && vertex.isList) return bottom(`conflicting values [...] and {...} (mismatched types list and struct)`, []);
  if (vertex.isStruct || vertex.isList) {
    const kind = vertex.isList ? LIST : STRUCT;
    const scalar = vertex.scalar;
    if (scalar.t === 'constraint' && (scalar.kinds & kind) !== 0 && (scalar.bounds.length === 0 || scalar.bounds.every(excludesOnlyNull))) {
      // Without a descriptor an open list or struct may still grow: what a validator says of it now is not final.
      if (scalar.validators.length > 0 && vertex.ctx.withoutData && vertex.mayReceiveData()) vertex.tainted = true;
      for (const validator of scalar.validators) {
        const verdict = validator.check(vertex);
        if (verdict === false || (verdict !== true && verdict.validation)) return unsatisfied(vertex.format(1), validator, verdict, validator.at);
        if (verdict !== true) return verdict;
      }
      return vertex;
    }
    // A disjunction with `_` in it (`*null | _`) is the struct or list: the other disjuncts fail.
    if (scalar.t === 'disj' && scalar.values.some((member) => member.t === 'top')) return vertex;
    if (scalar.t !== 'top') {
      if (isBottom(scalar)) return scalar;
      const shown = vertex.isList ? '[...]' : '{...}';
      const at = [...(scalar.t === 'constraint' ? scalar.at : []), ...vertex.work.shapes];
      const conflict = (value: Value) =>
        `conflicting values ${formatValue(value)} and ${shown} (mismatched types ${kindName(kindOf(value))} and ${kindName(kind)})`;
      // Each disjunct conflicts: an empty disjunction, as CUE words it.
      if (scalar.t === 'disj')
        return { ...bottom(`${scalar.values.length} errors in empty disjunction: ${conflict(scalar.values[0])}`, at), count: scalar.values.length + 1 };
      return bottom(conflict(scalar), at);
    }
    return vertex;
  }
  // CUE's validateValue: a struct literal makes a struct when no conjunct made vertex a scalar.
  if (vertex.work.comprehensionStruct && vertex.scalar.t === 'top') {
    vertex.isStruct = true;
    return vertex;
  }
  return vertex.scalar;
}
