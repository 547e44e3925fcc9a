/**
 * Structs and lists as CUE evaluates them (spec.md, "Structs", "Closed structs", "Lists"): a
 * vertex gathers the conjuncts (expression + scope) that apply to one path, adds their fields as
 * arcs (child vertices, evaluated when read) and unifies the rest. A reference to a struct copies
 * that struct's conjuncts (CUE's structure sharing), so references inside it see the fields of
 * the value it is unified into. Disjunctions of structs are evaluated by forking the vertex, one
 * copy per disjunct, and keeping the copies without errors.
 */
import { InvalidRegexp } from '../internal/re2';
import type { Comprehension, Decl, Expr, Field, ListLit, StructLit } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { bareValidator } from './calls';
import { addComprehension } from './comprehensions';
import type { Context } from './context';
import { combineDefaults, disjunctsOf, outerTermsOf } from './disjuncts';
import { sameVertex } from './equality';
import { defaultOf, evalExpr, labelMatches, patternMatcher, sourceText, startOf } from './expressions';
import { letBinding, noteRead, resolveReference } from './references';
import { crossDisjunction, disjunction, unifyScalars } from './scalars';
import {
  type Bottom,
  bottom,
  type Bound,
  type ErrorCode,
  formatValue,
  isBottom,
  isScalar,
  kindName,
  kindOf,
  LIST,
  STRUCT,
  TOP,
  unsatisfied,
  type Value,
} from './values';

/** A JSON value from a descriptor, unified as CUE would read it from a .json file. */
export interface DataExpr {
  readonly type: 'data';
  readonly value: unknown;
}
/** A value already evaluated (a pattern's label, a builtin's struct). */
export interface ValueExpr {
  readonly type: 'value';
  readonly value: Value;
  readonly at?: Position;
}
export type ConjunctExpr = Expr | DataExpr | ValueExpr;

/** Names visible at one level of scope: a struct literal's fields and lets, or bound variables. */
export interface Env {
  readonly up?: Env;
  readonly vertex?: Vertex;
  readonly scope?: StructLit;
  readonly vars?: ReadonlyMap<string, Vertex | Value>;
  /** let values of this scope, once evaluated. */
  lets?: Map<string, Value>;
}

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
class Reference {
  constructor(readonly within: object) {}
}

/** derived() copies every field: one added here is added there too. */
export interface Conjunct {
  readonly expr: ConjunctExpr;
  readonly env: Env;
  /** From inside a definition: the structs it makes are closed. */
  readonly closed: boolean;
  /** The closedness group the struct literal of this conjunct adds its labels to (embeddings). */
  readonly group?: CloseGroup;
  /** Written as an embedding (`{#A, c: 1}`): a definition it names joins the embedding struct's group. */
  readonly embedded?: boolean;
  /** One side of a conjunction (`#A & {...}`). */
  readonly viaConjunction?: boolean;
  /** What closes it (a definition, a closed struct): closed conjuncts of one origin share a closedness group. */
  readonly origin?: object;
  /** The fields whose expansion it came from, innermost first (CUE's per-conjunct reference history, cycle.go). */
  readonly via?: Via;
  /** The field's own conjunct it was derived from (a disjunct, parentheses, a mark), not through a conjunction. */
  readonly from?: Conjunct;
  /** Closed only by the struct it is in embedding a definition: a reference to the field alone is open (CUE's reclose2). */
  readonly reclosed?: boolean;
}

/**
 * One expansion in a conjunct's history: `shared` when the field it was expanded into had no other
 * conjunct, so that CUE shares the referenced value instead of evaluating it again (share.go).
 */
interface Via {
  readonly target: Vertex;
  readonly shared: boolean;
  readonly up?: Via;
}

/** Whether a conjunct came from a shared expansion of a field: one it names again is then an ancestor of itself. */
function sharedExpansionOf(via: Via | undefined, target: Vertex): boolean {
  for (let at = via; at; at = at.up) if (at.target === target && at.shared) return true;
  return false;
}

export interface Pattern {
  readonly label: Expr;
  readonly env: Env;
  readonly value: Expr;
  readonly alias?: string;
  /** `x=[string]: ...`: the name of the field it applies to. */
  readonly fieldAlias?: string;
  readonly closed: boolean;
  /** What closes the struct that declares it: the fields it applies to are also declared there. */
  readonly origin?: object;
  matcher?: Value;
}

interface ListPart {
  readonly length: number;
  readonly open: boolean;
  readonly rest?: { expr: Expr; env: Env; closed: boolean; origin?: object };
  readonly at: Position;
}

/** A field expanded here, and how many of its conjuncts were added. */
interface Insertion {
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

interface PendingDisjunction {
  readonly disjuncts: readonly { readonly conjunct: Conjunct; readonly isDefault: boolean }[];
}

interface Work {
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
 * `{x}` is the value of x; a struct as soon as it declares anything else (or nothing). `{5, #d: 1}`
 * is 5 (with a definition): definitions, hidden and optional fields beside an embedding do not make a struct.
 */
function makesStruct(lit: StructLit): boolean {
  if (lit.makesStruct === undefined) {
    // Beside an embedding, `...` and pattern constraints make no struct (CUE's addStruct sets aStruct for regular fields only):
    // {..., #foo: string, _} & {string, #foo: "bar"} is that string.
    const regular = lit.decls.some(
      (decl) =>
        decl.type === 'field' &&
        decl.constraint !== '?' &&
        decl.label.kind !== 'pattern' &&
        !(decl.label.kind === 'name' && !decl.label.quoted && /^[#_]/.test(decl.label.name)),
    );
    lit.makesStruct = regular || !lit.decls.some((decl) => decl.type === 'embed' || decl.type === 'comprehension');
  }
  return lit.makesStruct;
}

/**
 * A vertex's value, or the vertex itself when that value is a scalar with definitions or hidden fields beside it
 * (`{2, #x: 1}`): as a disjunct it is not the same as another 2 (CUE's or.txtar: {2, #x: 1} | {2, #x: 2}).
 */
export function withAttached(vertex: Vertex): Value {
  const value = vertex.evaluate();
  return isScalar(value) && [...vertex.arcs.values()].some((arc) => arc.definition || arc.hidden) ? vertex : value;
}

/** `!=null`, the one bound a struct or list satisfies (it is never null). */
const excludesOnlyNull = (bound: Bound): boolean => bound.op === '!=' && bound.value.t === 'null';

const isEmbedding = (decl: Decl): boolean => decl.type === 'embed';

/**
 * The definitions a struct literal embeds when it embeds nothing else (`a: {#D, x: q: 2}`), each a closed struct without
 * `...` or patterns: such a struct is closed recursively, as the definitions are (CUE's issue 2241), so its own fields
 * that they do not declare are closed too. Undefined otherwise, or where the fields would join the definitions' own
 * (`{#A, a: b: 1}` with `#A: a?: #B`), which this does not model.
 */
function closingDefinitions(lit: StructLit, env: Env, from: Vertex): Vertex[] | undefined {
  const embeds = lit.decls.filter((decl) => decl.type === 'embed' || decl.type === 'comprehension');
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

/** Neither a struct, a list nor a disjunction: unified as a value. */
const isPlain = (value: Value): boolean => value.t === 'top' || value.t === 'constraint' || isScalar(value);

/** `#D` and the hidden `_#D` are definitions: their structs are closed. */
export const isDefinitionLabel = (name: string) => name.startsWith('#') || name.startsWith('_#');
const NO_ARCS: Map<string, Vertex> = new Map();
// Shared and empty until the first element (most vertices of a descriptor never get one); never pushed into.
const NO_CONJUNCTS: Conjunct[] = [];
const NO_GROUPS: CloseGroup[] = [];
const NO_PATTERNS: Pattern[] = [];
const NO_DECLARED: (StructLit | string)[] = [];
const NO_LITS: StructLit[] = [];

/** Appends to an array that may be one of the shared empty ones: a new array then, sized for its one element. */
function appended<T>(array: T[], empty: T[], item: T): T[] {
  if (array === empty) return [item];
  array.push(item);
  return array;
}
/**
 * What closes a list element with the other structs of its definition, as a field's origin does: the sides of
 * a conjunction (`#c: [#f1 & {as: []}]`) or disjunction, and a struct beside the list's `...T` (`[...#V] & [{spec: 1}]`)
 * close together. Only those: an element that is a reference keeps its own group (recursive lists such as
 * `#T: ["a", #T]` were over ten times slower per step with one).
 */
function elementOrigin(conjunct: Conjunct, element: Expr): object | undefined {
  if (!conjunct.closed || !((element.type === 'binary' && (element.op === '&' || element.op === '|')) || element.type === 'struct')) return undefined;
  return conjunct.origin ?? {};
}

/** Data has no scope: nothing in it refers to anything. */
const DATA_ENV: Env = {};
const dataConjunct = (value: unknown): Conjunct => ({ expr: { type: 'data', value }, env: DATA_ENV, closed: false });

/** The conjunct with another expression (or scope), written out: one object shape for all (a spread is slower). It copies every field of Conjunct. */
/** The lets whose expressions are being added where they are read (a let that reads itself is not added again). */
const inlinedLets = new Set<object>();

function derived(conjunct: Conjunct, expr: ConjunctExpr, env = conjunct.env, viaConjunction = conjunct.viaConjunction): Conjunct {
  const from = viaConjunction ? undefined : (conjunct.from ?? conjunct);
  return {
    expr,
    env,
    closed: conjunct.closed,
    group: conjunct.group,
    embedded: conjunct.embedded,
    viaConjunction,
    origin: conjunct.origin,
    via: conjunct.via,
    from,
    reclosed: conjunct.reclosed,
  };
}

const atOf = (expr: ConjunctExpr): Position | undefined => (expr.type === 'data' ? undefined : expr.type === 'value' ? expr.at : startOf(expr));

const definitionOrigins = new WeakMap<object, Map<string, object>>();

/**
 * What closes a definition field declared inside a closed struct: shared by the declarations of that
 * struct's origin (`#D: {#foo: {a: int}}` written twice), not by those added from outside it, which it
 * closes (`x: #D & {#foo: b: 1}` is `x.#foo.b: field not allowed`, as in CUE).
 */
function definitionOrigin(outer: object, label: string): object {
  let byLabel = definitionOrigins.get(outer);
  if (!byLabel) definitionOrigins.set(outer, (byLabel = new Map()));
  let origin = byLabel.get(label);
  if (!origin) byLabel.set(label, (origin = {}));
  return origin;
}

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
    this.finish(this.ownValue());
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

  private ownValue(): Value {
    // A structural cycle into a field that is no struct is that conflict first (`x: #X & Y` with `#X: int`, as CUE reports it).
    if (this.error?.code === 'structural-cycle' && isBottom(this.shape())) return this.shape();
    if (this.error && this.error.code !== 'incomplete' && this.error.code !== 'cycle') return this.error;
    const value = this.shape();
    if (isBottom(value)) return value;
    if (this.inherited && this.inherited.code !== 'incomplete' && this.inherited.code !== 'cycle') return this.inherited;
    // A cycle through a field still being evaluated leaves a concrete value standing (revisitLater).
    if (this.inherited?.code === 'cycle' && !this.error && isScalar(value)) return value;
    if (this.inherited?.code === 'cycle' && !this.error && value.t === 'constraint') {
      const partial = { ...this.inherited, message: `non-concrete value ${formatValue(value)} in a cycle` };
      partialCycles.add(partial);
      return partial;
    }
    return this.error ?? this.inherited ?? value;
  }

  /** An error read from another field (a reference, a builtin's argument). */
  private inherited?: Bottom;

  /** What the conjuncts make: a struct, a list or a scalar, or the conflict between them. */
  private shape(): Value {
    if (this.isStruct && this.isList) return bottom(`conflicting values [...] and {...} (mismatched types list and struct)`, []);
    if (this.isStruct || this.isList) {
      const kind = this.isList ? LIST : STRUCT;
      const scalar = this.scalar;
      if (scalar.t === 'constraint' && (scalar.kinds & kind) !== 0 && (scalar.bounds.length === 0 || scalar.bounds.every(excludesOnlyNull))) {
        // Without a descriptor an open list or struct may still grow: what a validator says of it now is not final.
        if (scalar.validators.length > 0 && this.ctx.withoutData && this.mayReceiveData()) this.tainted = true;
        for (const validator of scalar.validators) {
          const verdict = validator.check(this);
          if (verdict === false || (verdict !== true && verdict.validation)) return unsatisfied(this.format(1), validator, verdict, validator.at);
          if (verdict !== true) return verdict;
        }
        return this;
      }
      // A disjunction with `_` in it (`*null | _`) is the struct or list: the other disjuncts fail.
      if (scalar.t === 'disj' && scalar.values.some((member) => member.t === 'top')) return this;
      if (scalar.t !== 'top') {
        if (isBottom(scalar)) return scalar;
        const shown = this.isList ? '[...]' : '{...}';
        const at = [...(scalar.t === 'constraint' ? scalar.at : []), ...this.work.shapes];
        const conflict = (value: Value) =>
          `conflicting values ${formatValue(value)} and ${shown} (mismatched types ${kindName(kindOf(value))} and ${kindName(kind)})`;
        // Each disjunct conflicts: an empty disjunction, as CUE words it.
        if (scalar.t === 'disj')
          return { ...bottom(`${scalar.values.length} errors in empty disjunction: ${conflict(scalar.values[0])}`, at), count: scalar.values.length + 1 };
        return bottom(conflict(scalar), at);
      }
      return this;
    }
    // CUE's validateValue: a struct literal makes a struct when no conjunct made this a scalar.
    if (this.work.comprehensionStruct && this.scalar.t === 'top') {
      this.isStruct = true;
      return this;
    }
    return this.scalar;
  }

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
        if (expr.type === 'ident' && isBottom(target) && target.code === 'incomplete') return this.addIncompleteLet(expr.name, env, target, conjunct);
        return this.addValue(target, conjunct, expr.at);
      }
    }
    this.addValue(evalExpr(expr, env, this), conjunct, atOf(expr));
  }

  /**
   * A let read where its value is incomplete adds its expression, as CUE does: `let v = meta.n & int`
   * and `out: v` conflict with a descriptor's `out: "foo"` though meta.n is not there.
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
export function insert(vertex: Vertex, insertion: Insertion, from: Vertex): void {
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
export function mayShare(vertex: Vertex, target: Vertex, conjunct: Conjunct): boolean {
  if (target.parent?.arcs.get(target.key) !== target) return false;
  const closedHere = vertex.definition || conjunct.closed;
  return !closedHere || target.definition || target.conjuncts.some((inner) => inner.closed);
}

export function addDisjunction(vertex: Vertex, conjunct: Conjunct): void {
  const disjuncts = disjunctsOf(conjunct.expr as Expr).map((term) => ({ conjunct: derived(conjunct, term.value), isDefault: term.isDefault }));
  // Of scalars only (`"a" | "b"`, `*1 | int`): unified as a value, without forking vertex vertex.
  if (vertex.choices.length === 0) {
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
export function addStaged(vertex: Vertex, conjunct: Conjunct): boolean {
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
  const chosen = vertex.work.disjunctions[index].disjuncts[vertex.choices[index]];
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

export function adopt(vertex: Vertex, from: Vertex): void {
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

export function borrowArcs(vertex: Vertex, from: Vertex): void {
  vertex.arcs = new Map(from.arcs);
  for (const arc of vertex.arcs.values()) arc.parent = vertex;
  vertex.isStruct = from.isStruct;
  vertex.isList = from.isList;
  vertex.groups = from.groups;
}

export function addStruct(vertex: Vertex, conjunct: Conjunct, lit: StructLit): void {
  if (lit.decls.length > 0) vertex.work.shapes.push(lit.at);
  const env: Env = { up: conjunct.env, vertex, scope: lit };
  let group = conjunct.group;
  // A struct written as an embedding (`#C: {#A & #B, {[=~"^Q*$"]: int}}`) declares for the struct it is in.
  const embeddedStruct = group !== undefined && conjunct.embedded === true && !conjunct.viaConjunction;
  const own = !group || embeddedStruct;
  if (!group) {
    // The declarations of one definition (and of its fields) share a group: together they say what is allowed.
    group = conjunct.origin ? vertex.originGroup(conjunct.origin) : vertex.newGroup();
  }
  if (conjunct.closed) group.active = true;
  // What closes the fields: what closes vertex struct, shared by all its declarations; a struct that
  // embeds is closed on its own as well (`#B: #A & {#E, c: 1}` allows in c only what #E and it declare),
  // and an open one that embeds a definition closes with it (`a: {#A, #B}` allows a.b from both).
  const outer = conjunct.closed ? (conjunct.origin ?? group) : conjunct.origin;
  // A struct that is itself embedded is no new scope: what it embeds closes with the struct it is in, whose own
  // fields it allows (`r: {input: 1, {#deps}}` allows input beside #deps' root, as CUE's splitStruct).
  const within = lit.decls.some(isEmbedding) && !embeddedStruct ? (outer ? new Reference(outer) : group) : outer;
  group.declareFields(lit, own);
  const closing = conjunct.closed ? undefined : closingDefinitions(lit, env, vertex);
  for (const decl of lit.decls) {
    switch (decl.type) {
      case 'field': {
        const { label } = decl;
        if (label.kind === 'name') {
          const definition = !label.quoted && isDefinitionLabel(label.name);
          const arc = vertex.arc(label.name, definition, !label.quoted && label.name.startsWith('_'));
          const origin = !definition ? within : conjunct.closed && outer ? definitionOrigin(outer, label.name) : arc;
          const reclosed = closing?.every((target) => !target.arcs.has(label.name)) === true || (conjunct.reclosed === true && !definition);
          arc.addConjunct({ expr: decl.value, env, closed: conjunct.closed || definition || reclosed, origin, via: conjunct.via, reclosed }, decl.constraint);
        } else if (label.kind === 'pattern') {
          const pattern: Pattern = {
            label: label.expr,
            env,
            value: decl.value,
            alias: label.alias,
            fieldAlias: decl.alias,
            closed: conjunct.closed,
            origin: within,
          };
          vertex.addPattern(pattern);
          group.addPattern(pattern);
          if (own) (group.ownPatterns ??= []).push(pattern);
          if (vertex.patternsApplied) for (const arc of vertex.arcs.values()) applyPattern(vertex, pattern, arc);
        } else {
          vertex.work.dynamic.push({ label: label.expr, decl, env, closed: conjunct.closed, group, origin: within });
        }
        break;
      }
      case 'embed':
        vertex.work.pending.push({ expr: decl.expr, env, closed: conjunct.closed, group, embedded: true, origin: within });
        break;
      case 'ellipsis':
        group.open = true;
        if (decl.constraint) vertex.addPattern({ label: { type: 'ident', name: '_', at: decl.at }, env, value: decl.constraint, closed: conjunct.closed });
        break;
      case 'comprehension':
        // What it yields is declared by vertex struct: its fields share what closes vertex struct's.
        vertex.work.comprehensions.push({ comp: decl, env, closed: conjunct.closed, group, origin: within });
        break;
    }
  }
  if (makesStruct(lit)) vertex.isStruct = true;
  else if (!lit.decls.some(isEmbedding)) vertex.work.comprehensionStruct = true;
}

/** Adds a field with a computed label; false when its label is not concrete yet and vertex is not the last try. */
export function addDynamic(vertex: Vertex, dynamic: Work['dynamic'][number], last: boolean): boolean {
  const label = defaultOf(evalExpr(dynamic.label, dynamic.env, vertex));
  if (isBottom(label) ? label.code === 'incomplete' : !isScalar(label) && !(label instanceof Vertex)) {
    if (!last) return false;
    // The struct is incomplete, as in CUE (a descriptor may still make the label concrete).
    vertex.tainted = true;
    const found = isBottom(label) ? `_|_(${label.message})` : formatValue(label);
    vertex.fail(bottom(`key value of dynamic field must be concrete, found ${found}`, [startOf(dynamic.label)], 'incomplete'));
    return true;
  }
  if (isBottom(label) || label.t !== 'string') {
    const source = sourceText(dynamic.label) ?? formatValue(label);
    const kind = kindName(kindOf(label));
    vertex.fail(
      isBottom(label)
        ? label
        : bottom(label.t === 'num' && label.int ? 'integer fields not supported' : `invalid index ${source} (invalid type ${kind})`, [dynamic.decl.at]),
    );
    return true;
  }
  vertex.isStruct = true;
  vertex.arc(label.v).addConjunct({ expr: dynamic.decl.value, env: dynamic.env, closed: dynamic.closed, origin: dynamic.origin }, dynamic.decl.constraint);
  dynamic.group.declare(label.v);
  return true;
}

export function applyPatterns(vertex: Vertex): void {
  if (vertex.patterns.length > 0 && vertex.unread) vertex.readAll();
  vertex.patternsApplied = true;
  for (const pattern of vertex.patterns) {
    // A label constraint that is itself wrong (`[1 & 2]: string`) is an error of the struct.
    const matcher = patternMatcher(pattern, vertex);
    if (isBottom(matcher) && matcher.code !== 'incomplete') vertex.fail({ ...matcher, at: [startOf(pattern.value)] });
    for (const arc of vertex.arcs.values()) applyPattern(vertex, pattern, arc);
  }
}

export function applyPattern(vertex: Vertex, pattern: Pattern, arc: Vertex): void {
  if ((vertex.isList && !vertex.isStruct) || arc.definition || arc.hidden) return;
  // A label constraint whose pattern RE2 refuses (`[=~"("]: int`) is an error of the struct once a label is matched against it, as CUE reports it.
  const matcher = patternMatcher(pattern, vertex);
  if (matcher.t === 'constraint')
    for (const { pattern: refused } of matcher.bounds) if (refused instanceof InvalidRegexp) return vertex.fail(bottom(`invalid regexp: ${refused.message}`));
  if (!labelMatches(pattern, arc.label, vertex)) return;
  let env = pattern.env;
  if (pattern.alias || pattern.fieldAlias) {
    const vars = new Map<string, Vertex | Value>();
    if (pattern.alias) vars.set(pattern.alias, { t: 'string', v: arc.label });
    if (pattern.fieldAlias) vars.set(pattern.fieldAlias, arc);
    env = { up: pattern.env, vars };
  }
  arc.conjuncts = appended(arc.conjuncts, NO_CONJUNCTS, { expr: pattern.value, env, closed: pattern.closed, origin: pattern.origin });
  if (arc.state === 'done') arc.reset();
}

export function addList(vertex: Vertex, conjunct: Conjunct, lit: ListLit): void {
  vertex.isList = true;
  vertex.work.shapes.push(lit.at);
  const env = conjunct.env;
  let index = 0;
  for (const element of lit.elements) {
    if (element.type === 'comprehension') {
      index = addComprehension(vertex, element, env, conjunct.closed, new CloseGroup(), index);
      continue;
    }
    vertex.arc(String(index++)).addConjunct({ expr: element, env, closed: conjunct.closed, via: conjunct.via, origin: elementOrigin(conjunct, element) });
  }
  const rest = lit.rest?.type ? { expr: lit.rest.type, env, closed: conjunct.closed, origin: conjunct.closed ? conjunct.origin : undefined } : undefined;
  vertex.work.lists.push({ length: index, open: Boolean(lit.rest), rest, at: lit.at });
}

/** List lengths: closed lists must agree; elements past an open list's own get its `...T`. */
export function closeLists(vertex: Vertex): void {
  if (vertex.work.lists.length === 0) return;
  const closed = vertex.work.lists.filter((part) => !part.open);
  const longest = Math.max(...vertex.work.lists.map((part) => part.length));
  if (closed.length > 0) {
    const length = closed[0].length;
    const other = closed.find((part) => part.length !== length) ?? vertex.work.lists.find((part) => part.open && part.length > length);
    if (other) {
      vertex.fail(bottom(`incompatible list lengths (${length} and ${other.length})`, [closed[0].at, other.at]));
      return;
    }
    vertex.listOpen = false;
  }
  const length = closed.length > 0 ? closed[0].length : longest;
  for (const part of vertex.work.lists) {
    if (!part.rest) continue;
    for (let index = part.length; index < length; index++) {
      const arc = vertex.arc(String(index));
      arc.conjuncts = appended(arc.conjuncts, NO_CONJUNCTS, { expr: part.rest.expr, env: part.rest.env, closed: part.rest.closed, origin: part.rest.origin });
    }
  }
}

export function addData(vertex: Vertex, value: unknown): void {
  if (value === null) return addScalar(vertex, { t: 'null' });
  switch (typeof value) {
    case 'string':
      return addScalar(vertex, { t: 'string', v: value });
    case 'boolean':
      return addScalar(vertex, { t: 'bool', v: value });
    case 'number':
      // CUE reads the descriptor's JSON: from 1e21 up a number is written with an exponent, a float.
      return addScalar(vertex, { t: 'num', int: Number.isInteger(value) && Math.abs(value) < 1e21, v: value });
    case 'object': {
      if (Array.isArray(value)) {
        vertex.isList = true;
        value.forEach((element, index) => vertex.arc(String(index)).addConjunct(dataConjunct(element)));
        vertex.work.lists.push({ length: value.length, open: false, at: { offset: 0, line: 0, column: 0 } });
        return;
      }
      vertex.isStruct = true;
      // Its fields become arcs when reached, if it is the first thing here (then they come first, as they would).
      if (vertex.arcMap === NO_ARCS && !vertex.unread && !vertex.patternsApplied) {
        vertex.unread = value as Record<string, unknown>;
        return;
      }
      if (vertex.unread) vertex.readAll();
      const object = value as Record<string, unknown>;
      for (const key in object) vertex.arc(key).addConjunct(dataConjunct(object[key]));
      return;
    }
  }
  vertex.fail(bottom(`unsupported data value ${typeof value}`));
}

export function addScalar(vertex: Vertex, value: Value): void {
  const unified = unifyScalars(vertex.scalar, value);
  if (isBottom(unified)) vertex.fail({ ...unified, at: [...new Set([...unified.at, ...vertex.work.positions])] });
  vertex.scalar = unified;
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

/**
 * A list made of values (a builtin's result, a slice, `+` and `*` of lists): its elements are
 * conjuncts of its own list literal, so a field unified with it gets them too.
 */
export function listOf(from: Vertex, values: readonly Value[], env: Env, at: Position = { offset: 0, line: 0, column: 0 }): Vertex {
  const list = new Vertex(from.ctx, from.label, from.parent);
  // An element may be a value already evaluated: addList adds each as a conjunct of its arc, which takes a ValueExpr.
  const elements = values.map((value): ValueExpr => ({ type: 'value', value })) as unknown as Expr[];
  list.addConjunct({ expr: { type: 'list', elements, at }, env, closed: false });
  list.evaluate();
  return list;
}

/** Cycle errors through a field with a bound (`c: a + b & >=5`): incomplete once read from outside the cycle, as in CUE. */
const partialCycles = new WeakSet<Bottom>();

const CODE_ORDER: readonly ErrorCode[] = ['eval', 'user', 'structural-cycle', 'incomplete', 'cycle'];

/**
 * The errors an empty disjunction reports (CUE's selectErrors): all of two, else one per position,
 * an error whose positions were all reported already being left out (a field not allowed in
 * several disjuncts is one error). Errors without a position are all kept.
 */
function selectErrors(errors: readonly Bottom[]): readonly Bottom[] {
  if (errors.length <= 2) return errors;
  const seen = new Set<string>();
  return errors.filter((error) => {
    if (error.at.length === 0) return true;
    const fresh = error.at.find((at) => !seen.has(`${at.line}:${at.column}`));
    if (fresh) seen.add(`${fresh.line}:${fresh.column}`);
    return fresh !== undefined;
  });
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
