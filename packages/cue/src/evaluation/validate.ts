import { firstError } from './errors';
import { defaultOf } from './expressions';
import { unifyScalars } from './scalars';
import { type Bottom, DataScalar, formatValue, incomplete, isBottom, isScalar, type Value } from './values';
import { Vertex } from './vertex';

let unifyingUnfinished = false;

/** A finalized value as data (defaults taken; scalars as they are), or undefined when something in it is not concrete. */
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
  return new DataScalar(picked);
}

/**
 * Why a value and a schema do not unify, or undefined when they do: a conflict first, then a required
 * field missing, and with `final` (matchN and matchIf, as CUE's Validate with finalCfg) an incomplete
 * error too; with `concrete` (yaml.Validate, CUE's `Validate(cue.Concrete(true))`) also a value left
 * not concrete (`incomplete value number`). The value is taken finalized, as data: unifying the vertex itself would run the validator
 * being checked again.
 */
export function unificationError(value: Value, schema: Value, from: Vertex, final: boolean, concrete = false): Bottom | undefined {
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
    return firstError(both) ?? unfinished(both, final, 0, concrete);
  } finally {
    unifyingUnfinished = false;
  }
}

/** Below a unification without conflicts: a required field missing, or with `final` an incomplete error. */
function unfinished(vertex: Vertex, final: boolean, depth: number, concrete: boolean): Bottom | undefined {
  const value = vertex.evaluate();
  if (isBottom(value)) return final || concrete ? value : undefined;
  if (concrete && value !== vertex) {
    const picked = defaultOf(value);
    return isScalar(picked) ? undefined : incomplete(`${vertex.path().join('.')}: incomplete value ${formatValue(picked)}`);
  }
  if (value !== vertex || depth >= vertex.ctx.maxDepth) return undefined;
  for (const arc of vertex.arcs.values()) {
    if (!arc.regular && arc.required) return incomplete(`${arc.label}: field is required but not present`);
    const error = arc.regular ? unfinished(arc, final, depth + 1, concrete) : undefined;
    if (error) return error;
  }
  return undefined;
}
