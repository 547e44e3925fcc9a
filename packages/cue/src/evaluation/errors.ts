/** The errors of a vertex as CUE reports them: the first one below a disjunct, and those an empty disjunction lists. */
import { type Bottom, type ErrorCode, isBottom } from './values';
import type { Vertex } from './vertex';

export const CODE_ORDER: readonly ErrorCode[] = ['eval', 'user', 'structural-cycle', 'incomplete', 'cycle'];

/**
 * The errors an empty disjunction reports (CUE's selectErrors): all of two, else one per position,
 * an error whose positions were all reported already being left out (a field not allowed in
 * several disjuncts is one error). Errors without a position are all kept.
 */
export function selectErrors(errors: readonly Bottom[]): readonly Bottom[] {
  if (errors.length <= 2) return errors;
  const seen = new Set<string>();
  return errors.filter((error) => {
    if (error.at.length === 0) return true;
    const fresh = error.at.find((at) => !seen.has(`${at.line}:${at.column}`));
    if (fresh) seen.add(`${fresh.line}:${fresh.column}`);
    return fresh !== undefined;
  });
}

/**
 * The first error in a vertex or its regular fields (not incomplete ones): what eliminates a disjunct. For a
 * disjunct (`ownIncomplete`), an incomplete field of its own counts too, as CUE's getErrorAll finds it
 * (disjunct2.go): `*{v: m.b} | 3` is 3 (disjunctions/elimination.txtar issue1924, errors.txtar issue3581); one
 * deeper does not (nestedNonMonotonic), nor one after an optional field, where CUE's walk stops (kept: stricter).
 */
export function firstError(vertex: Vertex, depth = 0, ownIncomplete = false): Bottom | undefined {
  const value = vertex.evaluate();
  if (vertex.notAllowed) return vertex.notAllowed;
  if (isBottom(value)) return value.code === 'incomplete' && !ownIncomplete ? undefined : value;
  if (value !== vertex || depth > vertex.ctx.maxDepth) return undefined;
  const incomplete = ownIncomplete && depth === 0 && ![...vertex.arcs.values()].some((arc) => !arc.regular && !arc.required);
  for (const arc of vertex.arcs.values()) {
    if (!arc.regular && !arc.notAllowed) continue;
    const error = firstError(arc, depth + 1, incomplete);
    if (error) return error;
  }
  return undefined;
}
