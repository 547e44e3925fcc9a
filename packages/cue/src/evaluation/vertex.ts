/**
 * Structs and lists as CUE evaluates them (spec.md, "Structs", "Closed structs", "Lists"): a
 * vertex gathers the conjuncts (expression + scope) that apply to one path, adds their fields as
 * arcs (child vertices, evaluated when read) and unifies the rest. A reference to a struct copies
 * that struct's conjuncts (CUE's structure sharing), so references inside it see the fields of
 * the value it is unified into. Disjunctions of structs are evaluated by forking the vertex, one
 * copy per disjunct, and keeping the copies without errors.
 */
import type { Comprehension, Expr, Field, StructLit } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { bareValidator } from './calls';
import { checkClosedness, CloseGroup, Reference } from './closedness';
import { addComprehension } from './comprehensions';
import { appended, atOf, type Conjunct, dataConjunct, derived, type Env, type Pattern } from './conjuncts';
import type { Context } from './context';
import { addData } from './descriptor-data';
import { addDisjunction, fork, type PendingDisjunction, takeChoice } from './disjunction-forks';
import { expand, type Insertion, reinsert } from './expansion';
import { evalExpr } from './expressions';
import { addList, closeLists, type ListPart } from './lists';
import { applyPattern, applyPatterns } from './patterns';
import { letBinding, resolveReference } from './references';
import { matchedCharacters, unifyScalars } from './scalars';
import { addDynamic, addStruct } from './struct-literals';
import { type Bottom, bottom, formatValue, isBottom, isScalar, TOP, type Value } from './values';
import { ownValue, partialCycles } from './vertex-value';

export interface Work {
  readonly pending: Conjunct[];
  readonly comprehensions: { comp: Comprehension; env: Env; closed: boolean; group: CloseGroup; origin?: object }[];
  dynamic: { label: Expr; decl: Field; env: Env; closed: boolean; group: CloseGroup; origin?: object }[];
  readonly disjunctions: PendingDisjunction[];
  readonly lists: ListPart[];
  /**
   * The fields whose conjuncts were unified here, each followed by the closedness group it was added
   * to (a few: a list is faster than a set). One embedded again for another group is added to that one too.
   */
  readonly expanded: (Vertex | CloseGroup | undefined)[];
  /** Where the values unified into this vertex were written: CUE lists them with a conflict. */
  readonly positions: Position[];
  /** Where the structs and lists unified into this vertex were written. */
  readonly shapes: Position[];
  originGroups?: Map<object, CloseGroup>;
  /** The fields of this vertex it expanded: what is added to them meanwhile is added here too. */
  insertions?: Insertion[];
  /** The fields it had when a comprehension of its own ranged over it: it may have no others. */
  frozenFields?: Set<string>;
  /** A struct literal of comprehensions only was unified here: a struct unless something else decides (`{if false {a: 1}}` is `{}`). */
  comprehensionStruct?: boolean;
  /**
   * References that met this very field before its structs were added (`kind: close({team: <="m"})`
   * with `kind: kind.team`: close()'s struct comes in once the pending conjuncts settle): added again
   * once, after, when the field they select may be there (CUE finds it in the partial value).
   */
  retried?: Conjunct[];
}

const newWork = (): Work => ({ pending: [], comprehensions: [], dynamic: [], disjunctions: [], lists: [], expanded: [], positions: [], shapes: [] });

const NO_CHOICES: readonly number[] = [];

/**
 * A vertex's value, or the vertex itself when that value is a scalar with definitions or hidden fields beside it
 * (`{2, #x: 1}`): as a disjunct it is not the same as another 2 (CUE's or.txtar: {2, #x: 1} | {2, #x: 2}).
 */
export function withAttached(vertex: Vertex): Value {
  const value = vertex.evaluate();
  return isScalar(value) && [...vertex.arcs.values()].some((arc) => arc.definition || arc.hidden) ? vertex : value;
}

export const NO_ARCS: Map<string, Vertex> = new Map();
// Shared and empty until the first element (most vertices of a descriptor never get one); never pushed into.
export const NO_CONJUNCTS: Conjunct[] = [];

const NO_GROUPS: CloseGroup[] = [];
export const NO_PATTERNS: Pattern[] = [];

/** The conjunct with another expression (or scope), written out: one object shape for all (a spread is slower). It copies every field of Conjunct. */
/** The lets whose expressions are being added where they are read (a let that reads itself is not added again). */
const inlinedLets = new Set<object>();

/**
 * The key of a regular field in a vertex's arcs: one whose name starts as a hidden field's or a
 * definition's does (a descriptor's `_links`, a quoted `"#x"`) is kept apart from the identifier's.
 */
export function regularKey(label: string): string {
  const first = label.charCodeAt(0);
  return first === 95 || first === 35 ? `\u0000${label}` : label; // '_', '#'
}

export class Vertex {
  readonly t = 'vertex' as const;
  /** Shared and empty until the first arc: most vertices of a descriptor are leaves. */
  arcMap: Map<string, Vertex> = NO_ARCS;
  /**
   * A descriptor's object whose fields are not all arcs yet: a field becomes one when a rule or a
   * reference reaches it, all do when the arcs are listed. Most fields of a descriptor no rule reaches
   * are never more than data (the verdict skips them), so they are not made into vertices.
   */
  unread?: Record<string, unknown>;
  conjuncts: Conjunct[] = NO_CONJUNCTS;
  /** `?` / `!` / regular conjuncts seen for this arc. */
  regular = false;
  required = false;
  state: 'new' | 'evaluating' | 'done' = 'new';
  value: Value = TOP;
  isStruct = false;
  isList = false;
  listOpen = true;
  scalar: Value = TOP;
  error?: Bottom;
  groups: CloseGroup[] = NO_GROUPS;
  patterns: Pattern[] = NO_PATTERNS;
  /** Reads of data-dependent values while this vertex was evaluated (the save check ignores its errors). */
  tainted = false;
  /** The save check: evaluating this vertex read something of the descriptor's space. */
  readsData = false;
  /** Made by close(): closed by itself wherever it is unified. */
  sealed = false;
  /** The verdict walk that visited it (verdict.ts): a vertex reached twice (a default's arcs are shared) is walked once. */
  walkedBy?: object;
  /** After a disjunction of structs with no single default: the candidates. */
  disjuncts?: { vertex: Vertex; isDefault: boolean }[];
  /** What only the evaluation needs (allocated then: most arcs of a descriptor are never evaluated). */
  work!: Work;
  choices: readonly number[] = NO_CHOICES;
  patternsApplied = false;

  constructor(
    readonly ctx: Context,
    readonly label: string,
    public parent: Vertex | undefined,
    readonly definition = false,
    /** A hidden field (`_x`, `_#x`): written as an identifier, never a descriptor's. */
    readonly hidden = false,
  ) {
    this.level = parent ? parent.level + 1 : 0;
  }

  private readonly level: number;

  get depth(): number {
    return this.level;
  }

  /** The keys of the arcs from the root to here (verdict.ts formatPath prints them). */
  path(): string[] {
    return this.parent ? [...this.parent.path(), this.key] : [];
  }

  /** Its key in its parent's arcs. */
  get key(): string {
    return this.definition || this.hidden ? this.label : regularKey(this.label);
  }

  /** The fields, in CUE's order: a descriptor's first, in its order, then the others as they were added. */
  get arcs(): Map<string, Vertex> {
    if (this.unread) this.readAll();
    return this.arcMap;
  }

  set arcs(arcs: Map<string, Vertex>) {
    this.arcMap = arcs;
    this.unread = undefined;
  }

  /** The arcs made so far, in the order of `arcs`: a descriptor's fields nothing reached (data alone, nothing to check) are left out. */
  readArcs(): Iterable<Vertex> {
    const unread = this.unread;
    if (!unread) return this.arcMap.values();
    const out: Vertex[] = [];
    for (const label in unread) {
      const arc = this.arcMap.get(regularKey(label));
      if (arc) out.push(arc);
    }
    for (const arc of this.arcMap.values()) if (arc.definition || arc.hidden || !Object.hasOwn(unread, arc.label)) out.push(arc);
    return out;
  }

  /** The arc of a key (as in `arcs`), if there is one: a descriptor's field not reached yet becomes one. */
  arcAt(key: string): Vertex | undefined {
    const arc = this.arcMap.get(key);
    if (arc || !this.unread) return arc;
    // A regular field's key is its label, or the label behind \u0000 when it starts as a hidden field's or a definition's does.
    const label = key.charCodeAt(0) === 0 ? key.slice(1) : key;
    if (label === key && regularKey(label) !== key) return undefined;
    return Object.hasOwn(this.unread, label) ? this.arc(label) : undefined;
  }

  /** The arc for a label, created (and given the patterns that match it) when new; definitions and hidden fields are named by identifiers. */
  arc(label: string, definition = false, hidden = false): Vertex {
    const key = definition || hidden ? label : regularKey(label);
    let arc = this.arcMap.get(key);
    if (!arc) {
      if (this.arcMap === NO_ARCS) this.arcMap = new Map();
      arc = new Vertex(this.ctx, label, this, definition, hidden);
      this.arcMap.set(key, arc);
      // A descriptor's field gets its data first, as when its object was unified.
      if (this.unread && !definition && !hidden && Object.hasOwn(this.unread, label)) arc.addConjunct(dataConjunct(this.unread[label]));
      if (this.patternsApplied) for (const pattern of this.patterns) applyPattern(this, pattern, arc);
    }
    return arc;
  }

  /** Makes every field of the descriptor's object an arc, the arcs in the order they would have had, made at once. */
  readAll(): void {
    const unread = this.unread as Record<string, unknown>;
    const made = this.arcMap;
    this.arcMap = new Map();
    for (const label in unread) {
      const key = regularKey(label);
      const arc = made.get(key);
      if (arc) this.arcMap.set(key, arc);
      else this.arc(label);
    }
    this.unread = undefined;
    for (const [key, arc] of made) if (!this.arcMap.has(key)) this.arcMap.set(key, arc);
  }

  /** Patterns added once the patterns were applied apply to the arcs there are: the descriptor's fields are all made first. */
  addPattern(pattern: Pattern): void {
    if (this.patternsApplied && this.unread) this.readAll();
    this.patterns = appended(this.patterns, NO_PATTERNS, pattern);
  }

  addConjunct(conjunct: Conjunct, constraint?: '?' | '!'): void {
    if (constraint === '!') this.required = true;
    else if (!constraint) this.regular = true;
    this.conjuncts = appended(this.conjuncts, NO_CONJUNCTS, conjunct);
    if (this.state === 'done') this.reset();
  }

  /** A conjunct arrived after evaluation (a pattern of a parent evaluated later): evaluate again when read. */
  reset(): void {
    Object.assign(this, {
      state: 'new',
      arcs: NO_ARCS,
      value: TOP,
      isStruct: false,
      isList: false,
      listOpen: true,
      scalar: TOP,
      error: undefined,
      notAllowed: undefined,
      groups: NO_GROUPS,
      patterns: NO_PATTERNS,
      disjuncts: undefined,
      inherited: undefined,
      patternsApplied: false,
    });
  }

  /** Records an error; a conflict outranks an incomplete value, which may yet be completed. */
  fail(error: Bottom): void {
    if (!this.error || (this.error.code === 'incomplete' && error.code !== 'incomplete')) this.error = error;
  }

  /** Evaluates this vertex's own value (its arcs are evaluated when read). */
  evaluate(): Value {
    if (this.state === 'done') return this.value;
    // A field read while it is evaluated (`name: strings.ToLower(name)`): what it holds so far, if concrete.
    if (this.state === 'evaluating') {
      // While a disjunct of it is evaluated, the field stands for that disjunct (CUE's doDisjunct): `c: d: c.e` reads the disjunct's e.
      if (this.underEvaluation) return this.underEvaluation.evaluate();
      if (isScalar(this.scalar)) return this.scalar;
      // A list or struct already (a descriptor's): a builtin reading it is given it, and says what it cannot use.
      return this.isList !== this.isStruct ? this : bottom('cycle detected', [], 'cycle');
    }
    this.ctx.open++;
    try {
      const value = this.evaluateNew();
      // Read from outside every cycle, one left unresolved through a field with a bound is that bound not concrete (CUE reads it).
      return this.ctx.open === 1 && isBottom(value) && partialCycles.has(value) ? { ...value, code: 'incomplete' } : value;
    } finally {
      this.ctx.open--;
    }
  }

  private evaluateNew(): Value {
    this.state = 'evaluating';
    this.ctx.step();
    if (this.depth > this.ctx.maxDepth) {
      this.finish(bottom(`structural cycle (nesting deeper than ${this.ctx.maxDepth})`, [], 'structural-cycle'));
      return this.value;
    }
    const taintBefore = this.ctx.taint;
    const readsBefore = this.ctx.dataReads;
    this.work = newWork();
    for (const conjunct of this.conjuncts) this.add(conjunct);
    this.settle();
    if (this.work.retried) {
      for (const conjunct of this.work.retried) this.add(conjunct);
      this.settle();
    }
    if (this.inherited?.code === 'cycle') this.resolveCycle();
    applyPatterns(this);
    // A comprehension that is incomplete waits until another one has yielded, then is tried again.
    let waiting: Work['comprehensions'] | undefined;
    while (this.work.comprehensions.length > 0) {
      const entry = this.work.comprehensions.shift() as (typeof this.work.comprehensions)[number];
      const held = addComprehension(this, entry.comp, entry.env, entry.closed, entry.group, 0, entry.origin, true) < 0;
      this.settle();
      if (held) (waiting ??= []).push(entry);
      else if (waiting) {
        this.work.comprehensions.push(...waiting);
        waiting = undefined;
      }
    }
    if (waiting) {
      for (const { comp, env, closed, group, origin } of waiting) addComprehension(this, comp, env, closed, group, 0, origin);
      this.settle();
    }
    if (this.work.frozenFields) this.checkFrozenFields(this.work.frozenFields);
    closeLists(this);
    if (this.ctx.taint !== taintBefore) this.tainted = true;
    if (this.ctx.dataReads !== readsBefore) this.readsData = true;
    if (this.work.disjunctions.length > this.choices.length) {
      fork(this);
      return this.value;
    }
    // close()'s own struct: closed at its level (its argument's conjunct is not a closed one).
    if (this.sealed) for (const group of this.groups) group.active = true;
    checkClosedness(this);
    this.finish(ownValue(this));
    if (this.inherited?.code === 'cycle' || this.error?.code === 'cycle') return this.revisitLater();
    return this.value;
  }

  /**
   * A cycle through this field that its own value resolves (`x: y + 100`, `y: x - 100`, `x: 200`):
   * the conjuncts are added again, now reading the value it holds.
   */
  private resolveCycle(): void {
    if (this.error || !isScalar(this.scalar) || this.isStruct || this.isList || this.work.disjunctions.length > 0) return;
    this.inherited = undefined;
    for (const conjunct of this.conjuncts) this.add(conjunct);
    this.settle();
  }

  /** A value that went through a cycle not resolved yet (a field still being evaluated): returned now, evaluated again when read next. */
  private revisitLater(): Value {
    const value = this.value;
    this.reset();
    return value;
  }

  finish(value: Value): void {
    this.value = value;
    if (isBottom(value)) this.fail(value);
    this.state = 'done';
  }

  /** An error read from another field (a reference, a builtin's argument). */
  inherited?: Bottom;

  /** Adds what is pending, then the fields with computed labels (whose labels may read those). */
  private settle(): void {
    // Not once a disjunction is met: a disjunct would insert what it chose (`{y: 1 | {y: 1}, y}` is {y: 1}).
    do this.settleAdded();
    while (this.work.insertions && this.work.disjunctions.length === 0 && reinsert(this, this.work.insertions));
  }

  private settleAdded(): void {
    while (this.work.pending.length > 0 || this.work.dynamic.length > 0) {
      while (this.work.pending.length > 0) this.add(this.work.pending.shift() as Conjunct);
      const dynamic = this.work.dynamic;
      this.work.dynamic = [];
      // A label not known yet waits while the others add fields (`(x.foo): 1` with `(x.baz): "foo"`), then is incomplete.
      const held = dynamic.filter((field) => !addDynamic(this, field, false));
      if (held.length < dynamic.length) this.work.dynamic.push(...held);
      else for (const field of held) addDynamic(this, field, true);
    }
  }

  /** Adds one conjunct: structural ones (structs, lists, data) at once, the others into the scalar. */
  add(conjunct: Conjunct): void {
    this.ctx.step();
    const { expr, env } = conjunct;
    switch (expr.type) {
      case 'paren':
        return this.add(derived(conjunct, expr.expr));
      case 'alias':
        // A value alias (`x={...}`) names the value it is unified into: in a disjunct, that disjunct's.
        return this.add(derived(conjunct, expr.expr, { up: env, vars: new Map([[expr.name, this]]) }));
      case 'binary':
        if (expr.op === '&') {
          // A definition on either side of a conjunction is closed on its own (`#A & #B` allows what
          // both allow), even when the conjunction is embedded (it then also allows the embedding
          // struct's own fields); the other sides join the group they are in.
          this.add(derived(conjunct, expr.left, env, true));
          this.add(derived(conjunct, expr.right, env, true));
          return;
        }
        if (expr.op === '|') return addDisjunction(this, conjunct);
        break;
      case 'unary':
        if (expr.op === '*') return this.add(derived(conjunct, expr.operand));
        break;
      case 'struct':
        return addStruct(this, conjunct, expr);
      case 'list':
        return addList(this, conjunct, expr);
      case 'data':
        return addData(this, expr.value);
      case 'value':
        return this.addValue(expr.value, conjunct, expr.at);
      case 'ident':
      case 'selector':
      case 'index': {
        const target = resolveReference(expr, env, this);
        if (target instanceof Vertex) return expand(this, target, conjunct);
        if (expr.type !== 'ident' && isBottom(target) && target.code === 'cycle' && this.state === 'evaluating' && !this.work.retried?.includes(conjunct)) {
          (this.work.retried ??= []).push(conjunct);
          return;
        }
        if (expr.type === 'ident' && isBottom(target) && (target.code === 'incomplete' || target.code === 'cycle'))
          return this.addIncompleteLet(expr.name, env, target, conjunct);
        return this.addValue(target, conjunct, expr.at);
      }
    }
    this.addValue(evalExpr(expr, env, this), conjunct, atOf(expr));
  }

  /**
   * A let read where its value is incomplete adds its expression, as CUE does: `let v = meta.n & int`
   * and `out: v` conflict with a descriptor's `out: "foo"` though meta.n is not there; so does one
   * read inside its own cycle (`let v = email`, `email: v`), which is then `email: email`.
   */
  private addIncompleteLet(name: string, env: Env, value: Bottom, conjunct: Conjunct): void {
    const binding = letBinding(name, env);
    // A let that reads itself (through its own expression) stays the value it has.
    if (!binding || inlinedLets.has(binding.expr)) return this.addValue(value, conjunct);
    inlinedLets.add(binding.expr);
    try {
      this.add(derived(conjunct, binding.expr, binding.env));
    } finally {
      inlinedLets.delete(binding.expr);
    }
  }

  addValue(value: Value, conjunct: Conjunct, at?: Position): void {
    if (value instanceof Vertex) return expand(this, value, conjunct);
    if (value.t === 'disj' && value.values.some((member) => member instanceof Vertex)) {
      this.work.disjunctions.push({
        disjuncts: value.values.map((member, index) => ({
          conjunct: derived(conjunct, { type: 'value', value: member, at }),
          isDefault: value.defaults[index],
        })),
      });
      takeChoice(this);
      return;
    }
    if (value.t === 'builtin' && value.validator && value.arity === 1 && at) return this.addValue(bareValidator(value, at, this), conjunct, at);
    if (value.t === 'package' || value.t === 'builtin') {
      this.fail(bottom(`cannot use ${formatValue(value)} as a value`, [at]));
      return;
    }
    if (isBottom(value)) {
      // An error read from elsewhere stays that error (reported once, where it arose), below this field's own.
      if (!this.inherited || (this.inherited.code === 'incomplete' && value.code !== 'incomplete')) this.inherited = value;
      return;
    }
    const matched = matchedCharacters(this.scalar, value);
    if (matched > 0) this.ctx.chargeText(matched);
    const unified = unifyScalars(this.scalar, value, at ? [at] : []);
    if (isBottom(unified)) this.fail({ ...unified, at: [...new Set([...unified.at, ...this.work.positions])] });
    // CUE lists where the concrete values of a conflict were written, not the types and bounds.
    else if (at && isScalar(value)) this.work.positions.push(at);
    this.scalar = unified;
  }

  /** The struct and list values its evaluation expanded (what it referenced, close()'s struct): inspection shows schemas by them. */
  expandedFrom(): Vertex[] {
    return this.state === 'done' ? this.work.expanded.filter((entry): entry is Vertex => entry instanceof Vertex) : [];
  }

  /** A disjunct's copy: the field it is a copy of. */
  original?: Vertex;

  /** While it forks: the copy being evaluated. */
  underEvaluation?: Vertex;

  /** In a copy that forked: its surviving copies and the errors of the others. */
  branches?: { leaves: Vertex[]; errors: Bottom[] };

  /** Whether the disjunct chosen for the disjunction at a level is marked (`*`): undefined when that disjunction has no marks. */
  markedAt(level: number): boolean | undefined {
    const { disjuncts } = this.work.disjunctions[level];
    return disjuncts.some((disjunct) => disjunct.isDefault) ? disjuncts[this.choices[level]].isDefault : undefined;
  }

  get levels(): number {
    return this.choices.length;
  }

  newGroup(): CloseGroup {
    const group = new CloseGroup();
    this.groups = appended(this.groups, NO_GROUPS, group);
    return group;
  }

  /** The group of one origin here; a reference's group is inside the group of the struct that makes it. */
  originGroup(origin: object): CloseGroup {
    let group = this.work.originGroups?.get(origin);
    if (!group) {
      group = this.newGroup();
      (this.work.originGroups ??= new Map()).set(origin, group);
      if (origin instanceof Reference) (this.originGroup(origin.within).inner ??= []).push(group);
    }
    return group;
  }

  /** A list element made by a comprehension. */
  addElement(index: number, body: StructLit, env: Env, closed: boolean): void {
    this.arc(String(index)).addConjunct({ expr: body, env, closed });
  }

  notAllowed?: Bottom;

  /** The vertex to read fields from: itself, or its default when it is a disjunction of structs. */
  resolved(): Vertex | Value {
    const value = this.evaluate();
    if (value === this) return this;
    if (value.t === 'disj') {
      const defaults = (this.disjuncts ?? []).filter((member) => member.isDefault);
      if (defaults.length === 1) return defaults[0].vertex;
    }
    return value;
  }

  /** Field values, in order, for a list's elements. */
  elements(): Vertex[] {
    const out: Vertex[] = [];
    for (let index = 0; this.arcs.has(String(index)); index++) out.push(this.arcs.get(String(index)) as Vertex);
    return out;
  }

  /** A regular field of the data the descriptor fills (not inside a definition or hidden field). */
  inDataSpace(): boolean {
    if (!this.parent) return true;
    return this.regular && !this.definition && !this.hidden && this.parent.inDataSpace();
  }

  /** Ranged over while it is evaluated: the fields it has now are all it may have (CUE freezes its field set). */
  freezeFields(): Vertex {
    this.work.frozenFields ??= new Set(this.regularArcs().map((arc) => arc.label));
    return this;
  }

  private checkFrozenFields(frozen: Set<string>): void {
    for (const arc of this.regularArcs())
      if (!frozen.has(arc.label)) this.fail(bottom(`adding field ${arc.label} not allowed as field set was already referenced`, []));
  }

  /** Regular fields, as `for` and export see them. */
  regularArcs(): Vertex[] {
    return [...this.arcs.values()].filter((arc) => arc.regular && !arc.definition && !arc.hidden);
  }

  isClosed(): boolean {
    return this.groups.some((group) => group.active && !group.open);
  }

  /**
   * Whether a descriptor may still add fields or elements here (the save check): an open struct or
   * list, and also a closed struct that admits a field it does not have yet: a pattern constraint
   * (`[string]: T` in a definition still admits every key a descriptor brings) or an optional or
   * required field (`a?: T` becomes a field when a descriptor gives it). Sound because it
   * over-approximates: a closed struct counts as fixed only when it can hold nothing but the regular
   * fields it has, which the save check evaluates as they are.
   */
  mayReceiveData(): boolean {
    if (this.isList) return this.listOpen;
    if (!this.isStruct) return false;
    if (!this.isClosed() || this.patterns.length > 0) return true;
    for (const arc of this.arcMap.values()) if (!arc.regular && !arc.definition && !arc.hidden) return true;
    return false;
  }

  /** As CUE prints it in a message. It evaluates nothing: a message must not start evaluations (which could fail and format again). */
  format(depth: number): string {
    if (depth > 3) return this.isList ? '[...]' : '{...}';
    const shown = (arc: Vertex) => (arc.state !== 'done' ? '_' : formatValue(arc.value === arc ? arc : arc.value, depth + 1));
    if (this.isList) return `[${[...this.elements().map(shown), ...(this.listOpen ? ['...'] : [])].join(',')}]`;
    return `{${this.regularArcs()
      .map((arc) => `${arc.label}:${shown(arc)}`)
      .join(',')}}`;
  }
}
