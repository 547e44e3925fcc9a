/**
 * When two disjuncts are the same value, which a disjunction keeps once (CUE's Equal with
 * CheckStructural, internal/core/adt/equality.go): the same arcs (regular, optional, required,
 * definitions, hidden) with the same values, the same closedness, the same scalar or constraint;
 * all errors are alike.
 */
import { formatConstraint, isScalar, scalarEquals, type Value } from './values';
import { Vertex } from './vertex';

export function sameVertex(a: Vertex, b: Vertex, depth = 0): boolean {
  if (a === b) return true;
  if (depth > a.ctx.maxDepth) return false;
  const x = a.notAllowed ?? a.evaluate();
  const y = b.notAllowed ?? b.evaluate();
  if ((x === a) !== (y === b)) return false;
  if (x === a) {
    if (a.isList !== b.isList || a.isStruct !== b.isStruct || a.listOpen !== b.listOpen || closedForEquality(a) !== closedForEquality(b)) return false;
  } else if (!sameValue(x, y, depth)) return false;
  if (a.arcs.size !== b.arcs.size) return false;
  for (const [label, arc] of a.arcs) {
    const other = b.arcs.get(label);
    if (!other || other.regular !== arc.regular || other.required !== arc.required || !sameVertex(arc, other, depth + 1)) return false;
  }
  return true;
}

/**
 * Closed as CUE's Equal sees it (IsClosedStruct: the vertex's ClosedRecursive flag, internal/core/adt/unify.go
 * initBare and conjunct.go scheduleConjunct): a definition, closed, given a conjunct from a definition, or
 * inside a struct that is. So `disj: _ | *{}` in a definition and `disj: {} | _` outside it make one `{}`, not
 * an open and a closed one.
 */
function closedForEquality(vertex: Vertex): boolean {
  for (let at: Vertex | undefined = vertex; at; at = at.parent)
    if (at.definition || at.isClosed() || at.conjuncts.some((conjunct) => conjunct.closed)) return true;
  return false;
}

function sameValue(x: Value, y: Value, depth: number): boolean {
  if (x === y) return true;
  if (x instanceof Vertex || y instanceof Vertex) return x instanceof Vertex && y instanceof Vertex && sameVertex(x, y, depth + 1);
  if (isScalar(x) || isScalar(y)) return isScalar(x) && isScalar(y) && x.t === y.t && (x.t !== 'num' || y.t !== 'num' || x.int === y.int) && scalarEquals(x, y);
  if (x.t !== y.t) return false;
  switch (x.t) {
    case 'bottom':
    case 'top':
      return true;
    case 'constraint':
      return y.t === 'constraint' && x.kinds === y.kinds && formatConstraint(x) === formatConstraint(y);
    case 'disj':
      return (
        y.t === 'disj' &&
        x.values.length === y.values.length &&
        x.values.every((member, index) => x.defaults[index] === y.defaults[index] && sameValue(member, y.values[index], depth))
      );
    default:
      return false;
  }
}
