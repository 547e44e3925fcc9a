/**
 * Disjunctions (spec.md, "Disjunctions", "Default values"; CUE's disjunct2.go): one of scalars is unified as
 * a value; one of structs or lists forks the vertex, one copy per disjunct, and keeps the copies without errors.
 */
import { BeyondNative } from '../internal/beyond-native';
import type { Expr } from '../syntax/ast';
import { atOf, type Conjunct, derived } from './conjuncts';
import { combineDefaults, disjunctsOf, outerTermsOf } from './disjuncts';
import { sameVertex } from './equality';
import { CODE_ORDER, firstError, selectErrors } from './errors';
import { evalExpr } from './expressions';
import { crossDisjunction, disjunction } from './scalars';
import { type Bottom, bottom, type ErrorCode, isBottom, isScalar, type Value } from './values';
import { Vertex, withAttached } from './vertex';

export interface PendingDisjunction {
  readonly disjuncts: readonly { readonly conjunct: Conjunct; readonly isDefault: boolean }[];
}

/** Neither a struct, a list nor a disjunction: unified as a value. */
const isPlain = (value: Value): boolean => value.t === 'top' || value.t === 'constraint' || isScalar(value);

export function addDisjunction(vertex: Vertex, conjunct: Conjunct): void {
  const disjuncts = disjunctsOf(conjunct.expr as Expr).map((term) => ({ conjunct: derived(conjunct, term.value), isDefault: term.isDefault }));
  // Of scalars only (`"a" | "b"`, `*1 | int`): unified as a value, without forking the vertex. So in a
  // fork's copy too, whose disjunctions must be those of the vertex it copies, in the same order.
  {
    if (vertex.scalar.t !== 'top' && addStaged(vertex, conjunct)) return;
    const values = disjuncts.map((disjunct) => evalExpr(disjunct.conjunct.expr as Expr, disjunct.conjunct.env, vertex));
    if (values.every(isPlain))
      return vertex.addValue(
        disjunction(
          values,
          disjuncts.map((disjunct) => disjunct.isDefault),
        ),
        conjunct,
        atOf(conjunct.expr),
      );
    if (values.every((value) => isPlain(value) || (value.t === 'disj' && value.values.every(isPlain)))) {
      // A term that is a disjunction by value keeps its defaults only when marked or when no term is (as written ones).
      const members = combineDefaults(
        values.map((value, index) => ({
          marked: disjuncts[index].isDefault,
          value,
          inner: value.t === 'disj' ? value.values.map((member, at) => ({ value: member, isDefault: value.defaults[at] })) : undefined,
        })),
      );
      return vertex.addValue(
        disjunction(
          members.map((member) => member.value),
          members.map((member) => member.isDefault),
        ),
        conjunct,
        atOf(conjunct.expr),
      );
    }
  }
  vertex.work.disjunctions.push({ disjuncts });
  takeChoice(vertex);
}

/**
 * A disjunction of scalars with a disjunction as a term (`*(*"a" | string) | string`, `*P | int`) into a
 * field that has a value already: crossed with it one disjunct at a time, as CUE does (crossDisjunction).
 */
function addStaged(vertex: Vertex, conjunct: Conjunct): boolean {
  const written = outerTermsOf(conjunct.expr as Expr);
  // Only a term written as a disjunction or a reference can be one.
  if (
    !written.some(({ value }) => (value.type === 'binary' && value.op === '|') || value.type === 'ident' || value.type === 'selector' || value.type === 'index')
  )
    return false;
  const terms = written.map((term) => ({ marked: term.marked, value: evalExpr(term.value, conjunct.env, vertex) }));
  if (
    !terms.some((term) => term.value.t === 'disj') ||
    !terms.every((term) => isPlain(term.value) || (term.value.t === 'disj' && term.value.values.every(isPlain)))
  )
    return false;
  const at = atOf(conjunct.expr);
  const crossed = crossDisjunction(vertex.scalar, terms, at ? [at] : []);
  if (crossed) vertex.scalar = crossed;
  return crossed !== undefined;
}

/** In a fork, the disjunct chosen for the next disjunction is added as any conjunct. */
export function takeChoice(vertex: Vertex): void {
  const index = vertex.work.disjunctions.length - 1;
  if (index >= vertex.choices.length) return;
  const chosen = vertex.work.disjunctions[index].disjuncts.at(vertex.choices[index]);
  // A copy whose disjunctions are not those of the vertex it copies cannot be judged here.
  if (!chosen) throw new BeyondNative('a disjunction forked in an order the native evaluator does not follow');
  vertex.work.pending.push(chosen.conjunct);
}

/**
 * One copy per disjunct of the first undecided disjunction, each forking the next in turn: the
 * copies without errors remain. A fork inside a copy hands its surviving copies (and its errors)
 * to the fork above; the outermost one makes the disjunction of them.
 */
export function fork(vertex: Vertex): void {
  const undecided = vertex.work.disjunctions[vertex.choices.length];
  const leaves: Vertex[] = [];
  const errors: Bottom[] = [];
  undecided.disjuncts.forEach((_, index) => {
    const copy = new Vertex(vertex.ctx, vertex.label, vertex.parent, vertex.definition);
    copy.conjuncts = [...vertex.conjuncts];
    copy.original = vertex.original ?? vertex;
    copy.choices = [...vertex.choices, index];
    copy.regular = vertex.regular;
    copy.required = vertex.required;
    vertex.underEvaluation = copy;
    const value = copy.evaluate();
    if (copy.branches) {
      leaves.push(...copy.branches.leaves);
      errors.push(...copy.branches.errors);
      return;
    }
    // Taken or not, what a disjunct read of the descriptor's space counts (the save check).
    if (copy.tainted) vertex.tainted = true;
    // A disjunct that is an error, incomplete included, is eliminated (CUE's doDisjunct: getErrorAll).
    const error = isBottom(value) ? value : firstError(copy, 0, true);
    if (error) errors.push(error);
    else leaves.push(copy);
  });
  vertex.underEvaluation = undefined;
  if (vertex.choices.length > 0) {
    vertex.branches = { leaves, errors };
    vertex.state = 'done';
    return;
  }
  const defaults = defaultsOf(leaves);
  const unique = dedupe(leaves.map((vertex, index) => ({ vertex, isDefault: defaults[index] })));
  if (unique.length === 0) {
    const selected = selectErrors(errors);
    const [first] = selected;
    // CUE counts the errors of a nested empty disjunction with its own (`6 errors in empty disjunction`).
    const count = selected.reduce((sum, error) => sum + (error.count ?? 1), 0);
    const message = count === 1 ? first.message : `${count} errors in empty disjunction: ${first?.message ?? ''}`;
    // Of eval, structural cycle, incomplete and cycle errors, the last says what the disjunction is (CUE's collectErrors).
    const code = selected.reduce<ErrorCode>((worst, error) => (CODE_ORDER.indexOf(error.code) > CODE_ORDER.indexOf(worst) ? error.code : worst), 'eval');
    vertex.finish({ ...bottom(message, first?.at ?? [], count === 1 ? first.code : code), count: count === 1 ? undefined : count + 1 });
    return;
  }
  const marked = unique.filter((result) => result.isDefault);
  const chosen = unique.length === 1 ? unique[0] : marked.length === 1 ? marked[0] : undefined;
  if (unique.length === 1 && chosen) return adopt(vertex, chosen.vertex);
  vertex.disjuncts = unique.map(({ vertex, isDefault }) => ({ vertex, isDefault }));
  if (chosen) borrowArcs(vertex, chosen.vertex);
  vertex.finish(
    disjunction(
      unique.map((result) => withAttached(result.vertex)),
      unique.map((result) => result.isDefault),
    ),
  );
}

function adopt(vertex: Vertex, from: Vertex): void {
  borrowArcs(vertex, from);
  vertex.isStruct = from.isStruct;
  vertex.isList = from.isList;
  vertex.listOpen = from.listOpen;
  vertex.scalar = from.scalar;
  vertex.groups = from.groups;
  vertex.patterns = from.patterns;
  vertex.disjuncts = from.disjuncts;
  vertex.error = from.error;
  vertex.tainted ||= from.tainted;
  vertex.finish(from.value === from ? vertex : from.value);
}

function borrowArcs(vertex: Vertex, from: Vertex): void {
  vertex.arcs = new Map(from.arcs);
  for (const arc of vertex.arcs.values()) arc.parent = vertex;
  vertex.isStruct = from.isStruct;
  vertex.isList = from.isList;
  vertex.groups = from.groups;
}

const MAYBE = 0;
const IS_DEFAULT = 1;

const NOT_DEFAULT = 2;
/**
 * Which surviving copies are defaults, as CUE computes it over the cross product of the
 * disjunctions, one disjunction after the other (internal/core/adt/disjunct2.go): a copy's mode
 * unifies the mode so far with its disjunct's (not-default over default over unmarked), and a side
 * none of whose defaults survive counts as unmarked (spec.md, "Default values": "if all the marked
 * disjuncts of a marked disjunction are eliminated, then the remaining unmarked disjuncts are
 * considered as if they originated from an unmarked disjunction").
 */
function defaultsOf(leaves: readonly Vertex[]): boolean[] {
  const modes = leaves.map(() => MAYBE);
  const previous = leaves.map(() => MAYBE);
  const levels = Math.max(0, ...leaves.map((leaf) => leaf.levels));
  for (let level = 0; level < levels; level++) {
    let leftDrops = true;
    let rightDrops = true;
    const here = leaves.map((leaf, index) => {
      if (level >= leaf.levels) return undefined;
      const marked = leaf.markedAt(level);
      const mode = marked === undefined ? MAYBE : marked ? IS_DEFAULT : NOT_DEFAULT;
      if (modes[index] === IS_DEFAULT || previous[index] === IS_DEFAULT) leftDrops = false;
      if (mode === IS_DEFAULT) rightDrops = false;
      return mode;
    });
    here.forEach((mode, index) => {
      if (mode === undefined) return;
      modes[index] = Math.max(leftDrops ? MAYBE : modes[index], rightDrops ? MAYBE : mode);
      previous[index] = mode;
    });
  }
  return modes.map((mode) => mode === IS_DEFAULT);
}

/** Disjuncts that are the same value are one, a default if either was. */
function dedupe(results: { vertex: Vertex; isDefault: boolean }[]): { vertex: Vertex; isDefault: boolean }[] {
  const out: { vertex: Vertex; isDefault: boolean }[] = [];
  for (const result of results) {
    const same = out.find((other) => sameVertex(other.vertex, result.vertex));
    if (same) same.isDefault ||= result.isDefault;
    else out.push(result);
  }
  return out;
}
