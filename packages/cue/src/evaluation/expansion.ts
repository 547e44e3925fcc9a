/**
 * A reference to a struct or list unified into a vertex: the referenced field's conjuncts are added here (CUE's
 * structure sharing, share.go), with what closes them, and what is added to that field later is inserted too.
 */
import { type CloseGroup, Reference } from './closedness';
import { atOf, type Conjunct, sharedExpansionOf, type Via } from './conjuncts';
import { noteRead } from './references';
import { bottom } from './values';
import type { Vertex } from './vertex';

/** A field expanded here, and how many of its conjuncts were added. */
export interface Insertion {
  readonly target: Vertex;
  /** The keys from the vertex it was expanded into, when it is a field of that one. */
  readonly path: string[];
  count: number;
  readonly closed: boolean;
  readonly group?: CloseGroup;
  readonly origin?: object;
  readonly embedded: boolean;
  readonly via: Via;
}

/** A struct or list value reached by reference: its conjuncts are unified here. */
export function expand(vertex: Vertex, target: Vertex, conjunct: Conjunct): void {
  if (target === vertex || target === vertex.original) return;
  const expanded = vertex.work.expanded;
  for (let index = 0; index < expanded.length; index += 2)
    if (expanded[index] === target && (expanded[index + 1] === conjunct.group || !conjunct.embedded)) return;
  for (let v = vertex.parent; v; v = v.parent) {
    if (v === target || v.original === target) {
      vertex.isStruct ||= v.isStruct;
      vertex.fail(bottom('structural cycle', [atOf(conjunct.expr)], 'structural-cycle'));
      return;
    }
  }
  // A field whose one conjunct names the field it was shared from, within that field's value
  // (`#A: type: #T` with `#T: ["a", #T] | ...`): CUE evaluates the shared #T once, where #T is an ancestor.
  const alone = vertex.conjuncts.length === 1 && (vertex.conjuncts[0] === conjunct || vertex.conjuncts[0] === conjunct.from);
  if (alone && sharedExpansionOf(conjunct.via, target)) {
    vertex.fail(bottom('structural cycle', [atOf(conjunct.expr)], 'structural-cycle'));
    return;
  }
  expanded.push(target, conjunct.group);
  if (target.parent && target.parent.state === 'new') target.parent.evaluate();
  if (vertex.ctx.withoutData) {
    target.evaluate();
    noteRead(target);
  }
  const closed = conjunct.closed || target.definition;
  let group = conjunct.group;
  // A definition (or a close()d struct) closes on its own, unless embedded in a struct, whose
  // fields it then joins (`#D: {#A, c: int}` allows #A's fields and c).
  const ownGroup = (target.definition || target.sealed) && !(conjunct.embedded && !conjunct.viaConjunction);
  // What an embedding brings closes with the struct it is embedded in: their fields share a group.
  let origin = conjunct.embedded && !ownGroup ? conjunct.origin : undefined;
  if ((closed && !group) || ownGroup) {
    const outer = conjunct.embedded && conjunct.viaConjunction ? group : undefined;
    // A definition referenced inside a closed struct: that struct allows what the definition declares (`#B: #A & {c: 1}` allows #A's fields).
    if (target.definition && conjunct.closed && conjunct.origin) {
      const enclosing = group;
      origin = new Reference(conjunct.origin);
      group = vertex.originGroup(origin);
      // Reached through a definition's group (`out: #Foo` with `#Foo: #Bar & {...}`): that group allows it too.
      if (enclosing && !enclosing.inner?.includes(group)) (enclosing.inner ??= []).push(group);
    } else if (!ownGroup && conjunct.closed && conjunct.origin) {
      // A struct that is not a definition, reached inside a closed one, is declared by it (typo checks start only at definitions).
      origin = conjunct.origin;
      group = vertex.originGroup(origin);
    } else group = vertex.newGroup();
    group.alsoAllows = outer;
  }
  // A close()d struct closes the group it joins, but not its fields' structs.
  if (target.sealed && group) group.active = true;
  // The group closes when a struct of the definition is added to it (a closed conjunct), not before:
  // a definition that is a conjunction (`#C: #A & #B`) closes each side on its own.
  // Embedding a field embeds what it is made of (`{c1}` with `c1: #C1 & {...}` embeds #C1), a definition too
  // (`{#S, c: 1}` with `#S: close({a: int})` allows c); one side of an embedded conjunction is checked on its own
  // (`{A & {err: 2}}` with `A: #B` closes to #B).
  const embedded = conjunct.embedded === true && !conjunct.viaConjunction && !target.sealed;
  const via: Via = { target, shared: alone && mayShare(vertex, target, conjunct), up: conjunct.via };
  const insertion: Insertion = { target, path: [], count: 0, closed, group, origin, embedded, via };
  insert(vertex, insertion, target);
  // A field of vertex one (`{a, a: b: 1}`): what vertex one adds to it is inserted in turn (CUE's notification, insertion.txtar).
  for (let v = target.parent, key = target.key; v && v.depth >= vertex.depth; key = v.key, v = v.parent) {
    insertion.path.unshift(key);
    if (v === vertex) (vertex.work.insertions ??= []).push(insertion);
  }
}

/** Adds the conjuncts of an expanded field (or of what it became once more was added to it) not added yet. */
function insert(vertex: Vertex, insertion: Insertion, from: Vertex): void {
  const { target, closed, group, origin, embedded, via } = insertion;
  for (let index = insertion.count; index < from.conjuncts.length; index++) {
    const inner = from.conjuncts[index];
    vertex.work.pending.push({
      expr: inner.expr,
      env: inner.env,
      closed: (inner.closed && !inner.reclosed) || closed,
      group,
      origin: origin ?? inner.origin ?? (closed ? target : undefined),
      embedded,
      via,
    });
  }
  insertion.count = from.conjuncts.length;
}

/** Inserts what was added to the fields of vertex one it expanded; whether there was any. */
export function reinsert(vertex: Vertex, insertions: Insertion[]): boolean {
  let grown = false;
  for (const insertion of insertions) {
    let at = vertex.arcAt(insertion.path[0]);
    for (const key of insertion.path.slice(1)) {
      if (!at) break;
      if (at.state === 'new') at.evaluate();
      at = at.arcAt(key);
    }
    if (at && at.conjuncts.length > insertion.count) {
      insert(vertex, insertion, at);
      grown = true;
    }
  }
  return grown;
}

/**
 * Whether CUE shares a field it expands here instead of evaluating it again (shareIfPossible, share.go):
 * a field of the configuration (not a value made by an expression), and not an open one into a closed field.
 */
function mayShare(vertex: Vertex, target: Vertex, conjunct: Conjunct): boolean {
  if (target.parent?.arcs.get(target.key) !== target) return false;
  const closedHere = vertex.definition || conjunct.closed;
  return !closedHere || target.definition || target.conjuncts.some((inner) => inner.closed);
}
