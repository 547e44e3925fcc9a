/**
 * What `cue vet` reports of an evaluated value, in CUE's words: conflicts and fields not allowed
 * first (and alone, as CUE stops there), required fields that are missing, then, for `vet -c`,
 * every regular field that is not concrete.
 */
import { defaultOf } from '../evaluation/expressions';
import { type Bottom, formatValue, isBottom, isScalar, type Value } from '../evaluation/values';
import { Vertex } from '../evaluation/vertex';
import { formatPath } from '../syntax/field-paths';
import type { Position } from '../syntax/scanner';

export interface Finding {
  readonly path: readonly string[];
  readonly message: string;
  readonly at: readonly Position[];
  /** The error came from reading values a descriptor could still change (the save check ignores it). */
  readonly tainted: boolean;
}

export interface Findings {
  readonly conflicts: Finding[];
  readonly missing: Finding[];
  readonly incomplete: Finding[];
}

function comparePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return formatPath([a[i]]) < formatPath([b[i]]) ? -1 : 1;
  return a.length - b.length;
}

/** A finding as CUE prints it: `path: message` and one line per position in the script. */
export function formatFinding(finding: Finding, file: string): string {
  const head = finding.path.length > 0 ? `${formatPath(finding.path)}: ${finding.message}` : finding.message;
  const lines = [...new Set(finding.at.filter((at) => at.line > 0).map((at) => `    ${file}:${at.line}:${at.column}`))];
  return lines.length === 0 ? head : `${head}:\n${lines.join('\n')}`;
}

/**
 * A definition or hidden field of the script alone that no descriptor can change: it read nothing
 * of the descriptor's space and nothing in it conflicts. Evaluations skip it (only conflicts count
 * there, and the save check found none).
 *
 * Why skipping it is sound: a descriptor changes the evaluation only through the values it adds to
 * the descriptor's space, and a field that read any of them is marked `readsData` when it was
 * evaluated without one (expressions.ts noteRead). A read counts when the value read is not final
 * yet: not concrete, or a struct or list a descriptor may still add to (Vertex.mayReceiveData: open,
 * or closed but admitting fields it does not have, by a pattern constraint or an optional field).
 * A field that read only final values evaluates the same with any descriptor, so the verdict the
 * save check found for it holds for every descriptor. The boundary cases are tests of
 * tests/unit/cue-native-evaluator.test.ts ("a hidden field counting the keys of a closed struct").
 */
export function isSettled(vertex: Vertex, depth = 0): boolean {
  const value = vertex.evaluate();
  if (vertex.readsData || depth > vertex.ctx.maxDepth || vertex.notAllowed) return false;
  if (isBottom(value) && (value.code !== 'incomplete' || !vertex.isStruct)) return value.code === 'incomplete';
  if (value !== vertex && !isBottom(value)) return !(value.t === 'disj' && value.values.some((member) => member instanceof Vertex));
  for (const arc of vertex.arcs.values()) if (!isSettled(arc, depth + 1)) return false;
  return true;
}

function constraintPositions(value: Value): readonly Position[] {
  if (value.t !== 'constraint' || (value.bounds.length === 0 && value.validators.length === 0)) return [];
  return [...value.bounds.flatMap((bound) => (bound.at ? [bound.at] : [])), ...value.validators.flatMap((validator) => validator.at.slice(0, 1))];
}

/**
 * Walks the regular fields (not optional ones); in definitions and hidden fields, which are not
 * data, only conflicts count.
 */
export function collectFindings(root: Vertex, settled: ReadonlySet<string> = new Set()): Findings {
  const walk = new FindingsWalk(root, settled);
  walk.walk(root, false);
  const { findings } = walk;
  // CUE sorts its messages by path.
  for (const list of [findings.conflicts, findings.missing, findings.incomplete]) list.sort((a, b) => comparePaths(a.path, b.path));
  return findings;
}

/** One walk of an evaluated root (methods, not closures: one object per evaluation). */
class FindingsWalk {
  readonly findings: Findings = { conflicts: [], missing: [], incomplete: [] };
  /** An error read by another field is the same error there: CUE reports it once. */
  private readonly reported = new Set<Bottom>();

  constructor(
    private readonly root: Vertex,
    private readonly settled: ReadonlySet<string>,
  ) {}

  // Paths are read off the vertices when something is reported: most of what is walked reports nothing.
  walk(vertex: Vertex, onlyConflicts: boolean): void {
    // Nesting past maxDepth evaluates to a structural cycle error, which ends the walk there.
    if (vertex.walkedBy === this) return;
    vertex.walkedBy = this;
    const value = vertex.evaluate();
    if (vertex.notAllowed) {
      this.findings.conflicts.push({ path: vertex.path(), message: vertex.notAllowed.message, at: vertex.notAllowed.at, tainted: vertex.tainted });
      return;
    }
    if (isBottom(value)) {
      // A struct made wrong by what it read (a comprehension over a failing field): the fields first,
      // so that an error is reported where it arose.
      if (vertex.isStruct) this.walkArcs(vertex, onlyConflicts);
      if (onlyConflicts && (value.code === 'incomplete' || value.code === 'cycle')) return;
      return this.error(vertex.path(), value, vertex.tainted);
    }
    const chosen = value === vertex ? vertex : defaultOf(value);
    if (chosen instanceof Vertex) {
      if (chosen !== vertex) return this.walk(chosen, onlyConflicts);
      return this.walkArcs(vertex, onlyConflicts);
    }
    // A scalar keeps the definitions embedded with it (`{2, #x: 1}`): their conflicts are its errors (CUE's AddChildError).
    if (vertex.arcs.size > 0) this.walkArcs(vertex, onlyConflicts);
    if (!isScalar(chosen) && !onlyConflicts)
      this.findings.incomplete.push({
        path: vertex.path(),
        message: `incomplete value ${formatValue(chosen)}`,
        at: constraintPositions(chosen),
        tainted: true,
      });
  }

  private walkArcs(vertex: Vertex, onlyConflicts: boolean): void {
    for (const arc of vertex.readArcs()) {
      // Descriptor data no rule reaches is concrete and cannot conflict: nothing to look at. Sound because
      // every way a rule reaches a field adds a conjunct to it (a field of the policy, a pattern, a definition
      // or close() unified into its struct, a comprehension's yield), and a field its closed struct does not
      // allow is marked notAllowed when that struct is evaluated, which the walk does before its arcs. The
      // boundary is the test "checks a descriptor's fields no rule names when a reference, a pattern, a closed
      // definition or a comprehension reaches them" (tests/unit/cue-native-evaluator.test.ts).
      if (!arc.notAllowed && arc.conjuncts.length === 1 && arc.conjuncts[0].expr.type === 'data') continue;
      // Hidden fields and definitions are not data, but their conflicts are errors like any other.
      const hidden = arc.definition || arc.hidden;
      if (hidden && vertex === this.root && this.settled.has(arc.key)) continue;
      if (!arc.regular && !arc.notAllowed) {
        if (arc.required && !hidden && !onlyConflicts)
          this.findings.missing.push({ path: arc.path(), message: 'field is required but not present', at: [], tainted: true });
        continue;
      }
      this.walk(arc, onlyConflicts || hidden);
    }
  }

  private error(path: readonly string[], bottom: Bottom, tainted: boolean): void {
    if (this.reported.has(bottom)) return;
    this.reported.add(bottom);
    const target = bottom.code === 'incomplete' || bottom.code === 'cycle' ? this.findings.incomplete : this.findings.conflicts;
    target.push({ path, message: bottom.message, at: bottom.at, tainted });
  }
}
