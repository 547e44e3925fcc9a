/**
 * Closed structs (spec.md, "Closed structs"; CUE's closed.go): the groups of labels a definition or close()
 * allows, and the check that gives a field no group allows the error `field not allowed`.
 */
import type { StructLit } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { appended, type Env, type Pattern } from './conjuncts';
import { labelMatches } from './expressions';
import { resolveReference } from './references';
import { bottom } from './values';
import { NO_PATTERNS, regularKey, Vertex } from './vertex';

/** The labels one struct (and what it embeds) allows, when it is closed. */
export class CloseGroup {
  /** The struct literals whose named fields it declares, and computed labels: a set of them is made when first asked (most groups never are). */
  private declared: (StructLit | string)[] = NO_DECLARED;
  /** Those the struct literal that made this group declares itself, or a struct it embeds (not a definition it embeds). */
  private ownDeclared: StructLit[] = NO_LITS;
  private labels?: Set<string>;
  private own?: Set<string>;
  patterns: Pattern[] = NO_PATTERNS;
  /** Its pattern constraints likewise. */
  ownPatterns?: Pattern[];
  /** A definition in a conjunction embedded in a struct also allows that struct's own fields. */
  alsoAllows?: CloseGroup;
  open = false;
  active = false;
  /** The groups of definitions referenced inside this one's struct: what they declare, this one allows too. */
  inner?: CloseGroup[];

  /** The named fields of a struct literal unified with this group's struct, declared by that struct itself when own. */
  declareFields(lit: StructLit, own: boolean): void {
    this.declared = appended(this.declared, NO_DECLARED, lit);
    if (own) this.ownDeclared = appended(this.ownDeclared, NO_LITS, lit);
    this.labels = this.own = undefined;
  }

  /** A field with a computed label (`(k): v`). */
  declare(label: string): void {
    this.declared = appended(this.declared, NO_DECLARED, label);
    this.labels = undefined;
  }

  addPattern(pattern: Pattern): void {
    this.patterns = appended(this.patterns, NO_PATTERNS, pattern);
  }

  allows(label: string, vertex: Vertex): boolean {
    return this.open || this.declares(label, vertex) || (this.alsoAllows !== undefined && this.alsoAllows.ownAllows(label, vertex));
  }

  private ownAllows(label: string, vertex: Vertex): boolean {
    return (this.own ??= labelsOf(this.ownDeclared)).has(label) || this.ownPatterns?.some((pattern) => labelMatches(pattern, label, vertex)) === true;
  }

  private declares(label: string, vertex: Vertex): boolean {
    return (
      (this.labels ??= labelsOf(this.declared)).has(label) ||
      this.patterns.some((pattern) => labelMatches(pattern, label, vertex)) ||
      // A definition with `...` referenced inside this struct opens it too (`#B: #A & {a: <10}` with `#A: {a: int, ...}` allows any field, as CUE does).
      this.inner?.some((group) => group.open || group.declares(label, vertex)) === true
    );
  }
}

/**
 * The labels of the regular fields of struct literals, and computed labels: `"_x"` declares the
 * regular field _x (a descriptor's), `_x` and `#x` a hidden field and a definition, which are never checked.
 */
function labelsOf(declared: readonly (StructLit | string)[]): Set<string> {
  const labels = new Set<string>();
  for (const item of declared) {
    if (typeof item === 'string') labels.add(item);
    else
      for (const decl of item.decls)
        if (decl.type === 'field' && decl.label.kind === 'name' && (decl.label.quoted || regularKey(decl.label.name) === decl.label.name))
          labels.add(decl.label.name);
  }
  return labels;
}

/** One reference to a definition inside a closed struct: its fields close with it, and what it declares the enclosing struct allows. */
export class Reference {
  constructor(readonly within: object) {}
}

/**
 * The definitions a struct literal embeds when it embeds nothing else (`a: {#D, x: q: 2}`), each a closed struct without
 * `...` or patterns: such a struct is closed recursively, as the definitions are (CUE's issue 2241), so its own fields
 * that they do not declare are closed too. Undefined otherwise, or where the fields would join the definitions' own
 * (`{#A, a: b: 1}` with `#A: a?: #B`), which this does not model.
 */
export function closingDefinitions(lit: StructLit, env: Env, from: Vertex): Vertex[] | undefined {
  const embeds = (lit.embeds ??= lit.decls.filter((decl) => decl.type === 'embed' || decl.type === 'comprehension'));
  if (embeds.length === 0) return undefined;
  const targets: Vertex[] = [];
  for (const decl of embeds) {
    if (decl.type !== 'embed' || (decl.expr.type !== 'ident' && decl.expr.type !== 'selector') || !isDefinitionLabel(decl.expr.name)) return undefined;
    const target = resolveReference(decl.expr, env, from);
    if (!(target instanceof Vertex) || target.state === 'evaluating' || target.evaluate() !== target) return undefined;
    if (!target.isStruct || !target.isClosed() || target.patterns.length > 0) return undefined;
    targets.push(target);
  }
  return targets;
}

/** `#D` and the hidden `_#D` are definitions: their structs are closed. */
export const isDefinitionLabel = (name: string) => name.startsWith('#') || name.startsWith('_#');

const NO_DECLARED: (StructLit | string)[] = [];
const NO_LITS: StructLit[] = [];

const definitionOrigins = new WeakMap<object, Map<string, object>>();
/**
 * What closes a definition field declared inside a closed struct: shared by the declarations of that
 * struct's origin (`#D: {#foo: {a: int}}` written twice), not by those added from outside it, which it
 * closes (`x: #D & {#foo: b: 1}` is `x.#foo.b: field not allowed`, as in CUE).
 */
export function definitionOrigin(outer: object, label: string): object {
  let byLabel = definitionOrigins.get(outer);
  if (!byLabel) definitionOrigins.set(outer, (byLabel = new Map()));
  let origin = byLabel.get(label);
  if (!origin) byLabel.set(label, (origin = {}));
  return origin;
}

/** Fields a closed struct does not allow get the error `field not allowed`. */
export function checkClosedness(vertex: Vertex): void {
  const active = vertex.groups.filter((group) => group.active && !group.open);
  if (active.length === 0 || !vertex.isStruct) return;
  for (const arc of vertex.arcs.values()) {
    if (arc.hidden || arc.definition || (!arc.regular && !arc.required)) continue;
    const allowed = active.every((group) => group.allows(arc.label, vertex));
    if (!allowed) arc.notAllowed = bottom('field not allowed', declarations(arc));
  }
}

/** Where a field was declared, for an error on it (CUE lists the positions of the field's conjuncts). */
function declarations(arc: Vertex): Position[] {
  const at: Position[] = [];
  for (const conjunct of arc.conjuncts) {
    const decl = conjunct.env.scope?.decls.find((candidate) => candidate.type === 'field' && candidate.value === conjunct.expr);
    if (decl && !at.includes(decl.at)) at.push(decl.at);
  }
  return at;
}
