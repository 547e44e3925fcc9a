import { compileFile } from './compile/program';
import { comprehensionFailures } from './evaluation/comprehensions';
import { Context } from './evaluation/context';
import { patternMatcher } from './evaluation/expressions';
import { type Bottom, formatConstraint, formatNumber, formatValue, isBottom, kindName, type Validator, type Value } from './evaluation/values';
import { Vertex } from './evaluation/vertex';
import { registerStandardLibrary } from './pkg/packages';
import type { StructLit } from './syntax/ast';
import { formatPath } from './syntax/field-paths';

// The builtins reach the evaluator through its registry (evaluation/builtins-registry.ts).
registerStandardLibrary();

/**
 * A whole evaluated CUE file as plain data, for CUE's conformance tests (packages/cue/tests/conformance.test.ts):
 * every field finalized, errors kept where they occur.
 */
export type Inspected = InspectedBottom | InspectedStruct | (InspectedLeaf & { readonly closed?: true });

/**
 * A value that is not a struct or an error. `closed`: its field is closed as CUE's Value.IsClosed says of any value
 * (cue/types.go: the vertex is ClosedRecursive): a definition, a field within one, or one reached through one (`Y: #info.X`).
 */
type InspectedLeaf =
  | { readonly kind: 'top' }
  | { readonly kind: 'null' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int' | 'float'; readonly value: number; readonly text: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'bytes'; readonly value: string }
  /** A value that is not concrete and not a struct or list: `int`, `>=3 & int`, `strings.MinRunes(3)`; `text` as CUE prints it, `kinds` the kinds it allows. */
  | { readonly kind: 'constraint'; readonly text: string; readonly kinds: readonly string[] }
  | { readonly kind: 'list'; readonly elements: readonly Inspected[]; readonly open: boolean }
  | { readonly kind: 'disjunction'; readonly disjuncts: readonly { readonly value: Inspected; readonly isDefault: boolean }[] }
  | { readonly kind: 'function'; readonly name: string };

/**
 * `closed`: closed by a definition or close(); `open`: has `...`. `patterns`: the pattern constraints' labels as CUE text.
 * `embedded`: a scalar or list with definitions or hidden fields beside it (`{5, #d: 1}`), the fields being those.
 * `error`: the struct is incomplete (a comprehension in it is not known yet) or a comprehension in it failed, but keeps the fields it has, as in CUE.
 */
interface InspectedStruct {
  readonly kind: 'struct';
  readonly closed: boolean;
  readonly open: boolean;
  readonly fields: readonly InspectedField[];
  readonly patterns: readonly string[];
  readonly embedded?: Inspected;
  readonly error?: InspectedBottom;
}

/** An error: `eval` (conflict, not allowed, bad operands), `incomplete` (not yet known), `cycle`, `structural-cycle`, `user` (`_|_` / error()). */
export interface InspectedBottom {
  readonly kind: 'bottom';
  readonly code: 'eval' | 'incomplete' | 'cycle' | 'structural-cycle' | 'user';
  readonly message: string;
  readonly positions: readonly { readonly file: string; readonly line: number; readonly column: number }[];
  /** The path where it arose, as CUE prints it, when that is not where it is (a let's). */
  readonly origin?: string;
}

export interface InspectedField {
  readonly label: string;
  /** `?` optional, `!` required, `` regular. */
  readonly constraint: '' | '?' | '!';
  readonly definition: boolean;
  readonly hidden: boolean;
  readonly value: Inspected;
}

/**
 * Evaluates the CUE files of one package (as a txtar's `-- *.cue --` sections: all unified) and
 * returns the root struct. Nesting deeper than `maxDepth` (a structural cycle the evaluator did not
 * catch) is cut with a `structural-cycle` bottom. Throws on a syntax error or an unknown package.
 */
export function inspectFiles(files: readonly { readonly name: string; readonly text: string }[], maxDepth = 64, maxSteps = 2_000_000): Inspected {
  const programs = files.map((file) => compileFile(file.text, { references: false }));
  const vars = new Map(programs.flatMap((program) => [...(program.env.vars ?? new Map())]));
  const lit: StructLit = { type: 'struct', decls: programs.flatMap((program) => program.lit.decls), at: { offset: 0, line: 1, column: 1 } };
  const root = new Vertex(new Context(maxSteps, maxDepth), '', undefined);
  root.addConjunct({ expr: lit, env: { vars }, closed: false });
  const file = files[0]?.name ?? '';
  return inspect(root, 0, maxDepth, file);
}

function field(arc: Vertex, depth: number, maxDepth: number, file: string): InspectedField {
  return {
    label: arc.label,
    constraint: arc.regular ? '' : arc.required ? '!' : '?',
    definition: arc.definition,
    hidden: arc.hidden,
    value: withClosedness(arc, inspect(arc, depth + 1, maxDepth, file)),
  };
}

/** A field's value that is not a struct (nor an error) marked closed when CUE's vertex of it is closed recursively. */
function withClosedness(arc: Vertex, value: Inspected): Inspected {
  return value.kind !== 'struct' && value.kind !== 'bottom' && closedRecursively(arc, new Set()) ? { ...value, closed: true } : value;
}

/**
 * CUE's ClosedRecursive: a definition (unify.go initBare), a field of a vertex closed recursively (initBare), one with a
 * conjunct from inside a definition (conjunct.go scheduleConjunct, FromDef), or one whose value is expanded from such a
 * vertex (share.go, insertValueConjunct). A close()d struct is closed only at its own level (ClosedNonRecursive): not here.
 */
function closedRecursively(vertex: Vertex, seen: Set<Vertex>): boolean {
  if (seen.has(vertex)) return false;
  seen.add(vertex);
  return (
    vertex.definition ||
    vertex.conjuncts.some((conjunct) => conjunct.closed) ||
    (vertex.parent !== undefined && closedRecursively(vertex.parent, seen)) ||
    vertex.expandedFrom().some((from) => closedRecursively(from, seen))
  );
}

function inspect(target: Vertex | Value, depth: number, maxDepth: number, file: string): Inspected {
  if (depth > maxDepth) return { kind: 'bottom', code: 'structural-cycle', message: 'structural cycle', positions: [] };
  let value: Value = target;
  if (target instanceof Vertex) {
    value = target.evaluate();
    if (target.notAllowed) value = target.notAllowed;
    const list = (): Inspected => ({
      kind: 'list',
      elements: target.elements().map((element) => inspect(element, depth + 1, maxDepth, file)),
      open: target.listOpen,
    });
    const attached = [...target.arcs.values()].filter((arc) => arc.definition || arc.hidden || !arc.regular);
    const patterns = () => target.patterns.map((pattern) => formatValue(patternMatcher(pattern, target)));
    // A disjunction's definitions and hidden fields are those of each disjunct (CUE clears the arcs of the field itself).
    if (value !== target && (attached.length > 0 || target.patterns.length > 0) && !isBottom(value) && value.t !== 'disj') {
      const embedded = target.isList ? list() : inspect(value, depth + 1, maxDepth, file);
      return {
        kind: 'struct',
        closed: target.groups.some((group) => group.active),
        open: false,
        fields: attached.map((arc) => field(arc, depth, maxDepth, file)),
        patterns: patterns(),
        embedded,
      };
    }
    // CUE keeps the fields of a struct that is incomplete, or whose comprehension failed (its value is the error, its arcs remain).
    const erroneousStruct =
      isBottom(value) && (value.code === 'incomplete' || comprehensionFailures.has(value)) && target.isStruct && !target.isList && target.arcs.size > 0;
    if (value === target || erroneousStruct) {
      if (target.isList) return list();
      const fields = [...target.arcs.values()].map((arc) => field(arc, depth, maxDepth, file));
      const struct = {
        kind: 'struct' as const,
        closed: target.groups.some((group) => group.active),
        open: target.groups.some((group) => group.open),
        fields,
        patterns: patterns(),
      };
      return isBottom(value) ? { ...struct, error: inspectBottom(value, file) } : struct;
    }
  }
  switch (value.t) {
    case 'bottom':
      return inspectBottom(value, file);
    case 'top':
      return { kind: 'top' };
    case 'null':
      return { kind: 'null' };
    case 'bool':
      return { kind: 'bool', value: value.v };
    case 'num':
      return { kind: value.int ? 'int' : 'float', value: value.v, text: formatNumber(value) };
    case 'string':
      return { kind: 'string', value: value.v };
    case 'bytes':
      return { kind: 'bytes', value: value.v };
    case 'constraint':
      return {
        kind: 'constraint',
        text: formatConstraint(value, (validator) => validatorText(validator, 0)),
        kinds: kindName(value.kinds).replace(/[()]/g, '').split('|'),
      };
    case 'disj':
      return {
        kind: 'disjunction',
        disjuncts: value.values.map((member, index) => ({ value: inspect(member, depth + 1, maxDepth, file), isDefault: value.defaults[index] })),
      };
    case 'builtin':
      return { kind: 'function', name: value.name };
    case 'package':
      return { kind: 'function', name: value.path };
    case 'vertex':
      return inspect(value, depth + 1, maxDepth, file);
  }
}

function inspectBottom(value: Bottom, file: string): InspectedBottom {
  const inspected: InspectedBottom = {
    kind: 'bottom',
    code: value.code,
    message: value.message,
    positions: value.at.map((at) => ({ file, line: at.line, column: at.column })),
  };
  return value.origin ? { ...inspected, origin: formatPath(value.origin) } : inspected;
}

/** A validator as CUE prints it in a value: its arguments as schemas (`matchN(1, [{foo!: string}])`), not as messages show them. */
function validatorText(validator: Validator, depth: number, showing: Showing = { open: new Set(), cyclic: new Set() }): string {
  return validator.schemas ? `${validator.name}(${validator.args.map((arg) => schemaText(arg, depth + 1, showing)).join(', ')})` : validator.text;
}

/** The schemas being shown (a vertex and what it was expanded from: each reference is a copy) and those met again inside themselves. */
interface Showing {
  readonly open: Set<Vertex>;
  readonly cyclic: Set<Vertex>;
}

/**
 * A validator's argument with its fields' markers and constraints, evaluated first (inspection
 * comes after evaluation; the message text evaluates nothing, so it shows what is not evaluated yet as `_`).
 * A schema that holds itself (`#O: f?: matchN(1, [string, #O])`) is shown as CUE shows it, a structural cycle: `_|_`;
 * one closed by close() as `close({...})`.
 */
function schemaText(value: Value, depth: number, showing: Showing): string {
  if (depth > 8) return '_';
  if (value instanceof Vertex) {
    const evaluated = value.evaluate();
    if (value.notAllowed || evaluated !== value) return schemaText(value.notAllowed ?? evaluated, depth + 1, showing);
    const sources = [value, ...value.expandedFrom()];
    const again = sources.find((source) => showing.open.has(source));
    if (again) {
      showing.cyclic.add(again);
      return '_|_';
    }
    for (const source of sources) showing.open.add(source);
    const text = structText(value, depth, showing);
    for (const source of sources) showing.open.delete(source);
    if (sources.some((source) => showing.cyclic.has(source))) return '_|_';
    return sources.some((source) => source.sealed) ? `close(${text})` : text;
  }
  if (value.t === 'constraint') return formatConstraint(value, (validator) => validatorText(validator, depth + 1, showing));
  if (value.t === 'disj')
    return value.values.map((member, index) => `${value.defaults[index] ? '*' : ''}${schemaText(member, depth + 1, showing)}`).join(' | ');
  return formatValue(value);
}

/** A struct or list schema's fields or elements, each shown as a schema. */
function structText(value: Vertex, depth: number, showing: Showing): string {
  const shown = (arc: Vertex) => schemaText(arc, depth + 1, showing);
  if (value.isList) return `[${[...value.elements().map(shown), ...(value.listOpen ? ['...'] : [])].join(', ')}]`;
  const fields = [...value.arcs.values()].map((arc) => `${arc.label}${arc.regular ? '' : arc.required ? '!' : '?'}: ${shown(arc)}`);
  return `{${[...fields, ...(value.groups.some((group) => group.open) ? ['...'] : [])].join(', ')}}`;
}
