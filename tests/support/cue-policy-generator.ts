/**
 * Random CUE policies (in the syntax CUE v0.4 reads) of the shapes governance teams write, each with
 * descriptors near its boundaries, for the differential between the native evaluator and CUE v0.4
 * (tests/support/cue-differential.ts, docs/cue-policies.md "The differential, continuously").
 *
 * A policy is a model (fields with types and bounds, values computed from them) rendered to a
 * script; a descriptor is a plan (which fields to change, to which of their boundary values) applied
 * to the policy's compliant descriptor. Both are plain records of small numbers and choices, so that
 * fast-check shrinks them: fewer fields, fewer computed values, plans back to the compliant
 * descriptor, choices towards the first (simplest) ones.
 *
 * Left out on purpose, because CUE v0.4 reads them differently by design (docs/cue-policies.md,
 * "Differences from CUE v0.4"): required fields (`name!:`), `list.MinItems` on an open list, list
 * arithmetic (`[1] + [2]`), comparisons of structs or lists.
 */
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Regular expressions that RE2 and JavaScript read alike, each with strings it matches and misses. */
const PATTERNS: readonly { readonly source: string; readonly matches: readonly string[]; readonly misses: readonly string[] }[] = [
  { source: '^[a-z]+$', matches: ['sales', 'a'], misses: ['Sales', 'a1', ''] },
  { source: '^[a-z][a-z0-9-]*$', matches: ['dp-x', 'a1'], misses: ['1a', '-a', 'A'] },
  { source: '^[0-9]+\\.[0-9]+\\.[0-9]+$', matches: ['1.0.0', '10.2.33'], misses: ['1.0', 'v1.0.0', '1x0x0'] },
  { source: '@', matches: ['a@b.c'], misses: ['ab', ''] },
  { source: '^x-', matches: ['x-a', 'x-'], misses: ['a-x', 'X-a'] },
  { source: '^[A-Z]{3}$', matches: ['ABC'], misses: ['AB', 'ABCD', 'abc'] },
  { source: '^(dev|qa|prod)$', matches: ['qa', 'prod'], misses: ['test', 'prod1'] },
  { source: '\\d', matches: ['a1'], misses: ['ab'] },
  { source: '^\\S+$', matches: ['ab', 'é'], misses: ['a b', ''] },
  { source: '^.{2,4}$', matches: ['ab', 'éabc'], misses: ['a', 'abcde'] },
  { source: '^urn:[a-z]+:', matches: ['urn:dmb:x'], misses: ['urn:1:x', 'x:urn:a:'] },
  { source: '^[^@]+@[^@]+$', matches: ['a@b'], misses: ['@b', 'a@b@c'] },
  { source: '-', matches: ['a-b', '-'], misses: ['ab'] },
];

/** Patterns of map keys (`[=~"..."]: T`), with keys they match and a key they miss; null: `[string]: T`. */
const KEY_PATTERNS: readonly { readonly source: string | null; readonly keys: readonly string[]; readonly miss: string }[] = [
  { source: null, keys: ['a', 'b', 'c', 'd'], miss: 'e' },
  { source: '^x-', keys: ['x-a', 'x-b', 'x-c', 'x-d'], miss: 'a' },
  { source: '^[a-z]+$', keys: ['a', 'b', 'c', 'd'], miss: 'A' },
  { source: '^[a-z][a-z0-9-]*$', keys: ['a-1', 'b', 'c-2', 'd'], miss: '1a' },
];

const STRINGS = ['', 'a', 'ab', 'abc', 'sales', 'Sales', 'dp-sales', 'x-a', 'ABC', '1.0.0', 'a@b.c', 'a b', 'qa', 'prod', 'urn:dmb:x', 'é', 'a1', '-'];
const TEXTS = ['', 'a', '-', 'dp', 'x-', 'b'];
const ENUM_MEMBERS = ['dev', 'qa', 'prod', 'a', 'b'];
const NAMES = ['name', 'labels', 'size', 'version', 'owner', 'tags', 'env', 'kind', 'replicas', 'ratio', 'id', 'domain', 'components', 'team', 'limits'];
const SUBNAMES = ['name', 'email', 'team', 'version', 'kind', 'size'];
const EXTRA_KEYS = ['extra', 'x-a', 'c0', 'check_a', 'Name', '_hidden'];
const EXTRA_VALUES: readonly Json[] = ['x', '', 1, -1, 2.5, true, null, [], {}, ['a'], { a: 'x' }];

export type Op = '<' | '<=' | '>' | '>=' | '!=';
const OPS: readonly Op[] = ['<=', '>=', '<', '>', '!='];

export type Check =
  | { readonly kind: 'bound'; readonly op: Op; readonly value: number }
  | { readonly kind: 'match' | 'nomatch'; readonly pattern: number }
  | { readonly kind: 'nonEmpty' }
  | { readonly kind: 'runes'; readonly max: boolean; readonly n: number }
  | { readonly kind: 'affix'; readonly fn: 'HasPrefix' | 'HasSuffix' | 'Contains'; readonly text: string }
  | { readonly kind: 'type'; readonly name: 'string' | 'int' | 'number' | 'bool' };

export type Ty =
  | { readonly kind: 'int' | 'number'; readonly typed: boolean; readonly bounds: readonly { readonly op: Op; readonly value: number }[] }
  | { readonly kind: 'string'; readonly typed: boolean; readonly checks: readonly Check[] }
  | { readonly kind: 'enum'; readonly members: readonly string[]; readonly preferred: number | null }
  | { readonly kind: 'bool' }
  | { readonly kind: 'top' }
  | { readonly kind: 'nullable'; readonly of: Ty }
  /** `{...}` inline, or hoisted into a definition `#D<n>: {...}` (closed) that the field names. */
  | { readonly kind: 'struct'; readonly fields: readonly Field[]; readonly definition: boolean; readonly open: boolean }
  /** `{[string]: T}` or `{[=~"..."]: T}` (keys: an index in KEY_PATTERNS). */
  | { readonly kind: 'map'; readonly keys: number; readonly value: Ty }
  | { readonly kind: 'list'; readonly element: Ty; readonly nonEmpty: boolean; readonly validator: 'none' | 'unique' | 'max'; readonly max: number };

export interface Field {
  readonly name: number;
  readonly optional: boolean;
  readonly ty: Ty;
}

/** Where a computed value reads from: an index among the policy's fields (and their subfields) of a fitting type. */
type Source = number;

export type Computed =
  /** `_c: len([for k, _ in F {k}]) & <=N`, `len(F)`, `len([for v in F {v}])`, a filter `if v == "x"`. */
  | { readonly kind: 'count'; readonly source: Source; readonly form: 'keys' | 'len' | 'values' | 'filter'; readonly op: Op; readonly value: number }
  /** A check of every element: `_c: [for k, v in F {v & C}]`, of every key, or `for k, v in F {"check_\(k)": v & C}`. */
  | { readonly kind: 'each'; readonly source: Source; readonly form: 'values' | 'keys' | 'fields'; readonly check: Check }
  | {
      readonly kind: 'strings';
      readonly source: Source;
      /** A constant first argument instead of the field (a policy that computes without a descriptor). */
      readonly literal: string | null;
      readonly fn: 'ToUpper' | 'ToLower' | 'TrimSpace' | 'Replace' | 'Repeat' | 'HasPrefix' | 'HasSuffix' | 'Contains' | 'Split';
      readonly text: string;
      readonly replacement: string;
      readonly count: number;
      readonly check: Check;
    }
  | {
      readonly kind: 'list';
      readonly source: Source;
      readonly fn: 'Contains' | 'Sum' | 'Max' | 'SortStrings' | 'Concat' | 'Take' | 'UniqueItems' | 'MaxItems';
      readonly n: number;
      readonly check: Check;
    }
  | {
      readonly kind: 'arith';
      readonly left: Source;
      readonly right: Source | null;
      readonly op: '+' | '-' | '*';
      readonly constant: number;
      readonly check: Check;
    }
  /** `G: >=F`: one field bounded by another. */
  | { readonly kind: 'relation'; readonly left: Source; readonly right: Source; readonly op: Op }
  | { readonly kind: 'interpolation'; readonly parts: readonly Source[]; readonly separator: string; readonly check: Check }
  /** `if F == "x" {G: C}`, `if F > N`, `if F != _|_` (present), `if len(F) > N`. */
  | {
      readonly kind: 'if';
      readonly source: Source;
      readonly cond: 'eq' | 'gt' | 'present' | 'lenGt';
      readonly value: number;
      readonly target: Source;
      readonly check: Check;
    };

export interface ComputedEntry {
  readonly computed: Computed;
  /** `_c0` (not data) or `c0` (a regular field, which the descriptor may also give). */
  readonly hidden: boolean;
  /** Through a `let`: `let L0 = <expression>` then `_c0: L0 & <check>`. */
  readonly viaLet: boolean;
  /** `_c0: <expression>` and `_c0: <check>` on two lines instead of one conjunction. */
  readonly split: boolean;
}

export interface PolicyModel {
  /** Fields at the top (open), in `close({...})`, or in a definition embedded at the top (`#Product: {...}`, `#Product`). */
  readonly wrapper: 'open' | 'close' | 'embed';
  readonly fields: readonly Field[];
  readonly computed: readonly ComputedEntry[];
  /** In `close` and `embed`, the fields the computed values read are declared again at the top: `F: _`, their own type again, or open. */
  readonly redeclare: 'top' | 'same' | 'open';
  readonly packageClause: boolean;
}

/** A descriptor: the compliant one with some fields changed (to one of their boundary values, or removed) and maybe a field added. */
export interface DescriptorPlan {
  readonly changes: readonly { readonly field: number; readonly pick: number }[];
  readonly extra: { readonly key: number; readonly value: number } | null;
}

export interface FuzzCase {
  readonly policy: PolicyModel;
  readonly plans: readonly DescriptorPlan[];
}

// ---------------------------------------------------------------- arbitraries

const weighted = <T>(...entries: [number, fc.Arbitrary<T>][]): fc.Arbitrary<T> => fc.oneof(...entries.map(([weight, arbitrary]) => ({ weight, arbitrary })));

const opArb = fc.constantFrom(...OPS);
const smallInt = fc.integer({ min: -1, max: 5 });
const boundArb = fc.record({ op: opArb, value: smallInt });

const checkArb: fc.Arbitrary<Check> = weighted<Check>(
  [3, fc.record({ kind: fc.constant('bound' as const), op: opArb, value: fc.integer({ min: 0, max: 4 }) })],
  [3, fc.record({ kind: fc.constantFrom('match' as const, 'nomatch' as const), pattern: fc.nat({ max: PATTERNS.length - 1 }) })],
  [1, fc.record({ kind: fc.constant('nonEmpty' as const) })],
  [1, fc.record({ kind: fc.constant('runes' as const), max: fc.boolean(), n: fc.integer({ min: 0, max: 4 }) })],
  [
    1,
    fc.record({
      kind: fc.constant('affix' as const),
      fn: fc.constantFrom('HasPrefix' as const, 'HasSuffix' as const, 'Contains' as const),
      text: fc.constantFrom(...TEXTS),
    }),
  ],
  [1, fc.record({ kind: fc.constant('type' as const), name: fc.constantFrom('string' as const, 'int' as const, 'number' as const, 'bool' as const) })],
);

const stringCheckArb: fc.Arbitrary<Check> = checkArb.filter((check) => check.kind !== 'bound' && check.kind !== 'type');

const scalarArb: fc.Arbitrary<Ty> = weighted<Ty>(
  [4, fc.record({ kind: fc.constant('int' as const), typed: fc.boolean(), bounds: fc.array(boundArb, { maxLength: 2 }) })],
  [1, fc.record({ kind: fc.constant('number' as const), typed: fc.boolean(), bounds: fc.array(boundArb, { maxLength: 2 }) })],
  [4, fc.record({ kind: fc.constant('string' as const), typed: fc.boolean(), checks: fc.array(stringCheckArb, { maxLength: 2 }) })],
  [
    2,
    fc.record({
      kind: fc.constant('enum' as const),
      members: fc.uniqueArray(fc.constantFrom(...ENUM_MEMBERS), { minLength: 2, maxLength: 3 }),
      preferred: fc.option(fc.nat({ max: 2 }), { nil: null }),
    }),
  ],
  [1, fc.constant<Ty>({ kind: 'bool' })],
  [1, fc.constant<Ty>({ kind: 'top' })],
);

function tyArb(depth: number): fc.Arbitrary<Ty> {
  if (depth >= 2) return scalarArb;
  const inner = tyArb(depth + 1);
  return weighted<Ty>(
    [8, scalarArb],
    [1, fc.record({ kind: fc.constant('nullable' as const), of: scalarArb })],
    [
      2,
      fc.record({
        kind: fc.constant('struct' as const),
        fields: fc.array(fieldArb(depth + 1), { minLength: 1, maxLength: 3 }),
        definition: fc.boolean(),
        open: fc.boolean(),
      }),
    ],
    [4, fc.record({ kind: fc.constant('map' as const), keys: fc.nat({ max: KEY_PATTERNS.length - 1 }), value: inner })],
    [
      2,
      fc.record({
        kind: fc.constant('list' as const),
        element: inner,
        nonEmpty: fc.boolean(),
        validator: fc.constantFrom('none' as const, 'unique' as const, 'max' as const),
        max: fc.integer({ min: 0, max: 3 }),
      }),
    ],
  );
}

function fieldArb(depth: number): fc.Arbitrary<Field> {
  return fc.record({
    name: fc.nat({ max: (depth === 0 ? NAMES : SUBNAMES).length - 1 }),
    optional: weighted([4, fc.constant(false)], [1, fc.constant(true)]),
    ty: tyArb(depth),
  });
}

const sourceArb = fc.nat({ max: 15 });

const computedArb: fc.Arbitrary<Computed> = weighted<Computed>(
  [
    // Counting the keys of a map is how "at most N labels" is written (case 1 of issue 34).
    6,
    fc.record({
      kind: fc.constant('count' as const),
      source: sourceArb,
      form: weighted([3, fc.constant('keys' as const)], [1, fc.constantFrom('len' as const, 'values' as const, 'filter' as const)]),
      // "At most N" is the usual rule on a count.
      op: weighted([3, fc.constant('<=' as const)], [1, fc.constant('<' as const)], [2, opArb]),
      value: fc.integer({ min: 0, max: 3 }),
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('each' as const),
      source: sourceArb,
      form: fc.constantFrom('values' as const, 'keys' as const, 'fields' as const),
      check: checkArb,
    }),
  ],
  [
    4,
    fc.record({
      kind: fc.constant('strings' as const),
      source: sourceArb,
      literal: weighted([5, fc.constant(null)], [1, fc.constantFrom('', 'ab', 'dp-x')]),
      fn: weighted(
        [4, fc.constant('Replace' as const)],
        [1, fc.constant('Repeat' as const)],
        [
          4,
          fc.constantFrom(
            'ToUpper' as const,
            'ToLower' as const,
            'TrimSpace' as const,
            'HasPrefix' as const,
            'HasSuffix' as const,
            'Contains' as const,
            'Split' as const,
          ),
        ],
      ),
      text: weighted([2, fc.constant('')], [3, fc.constantFrom(...TEXTS)]),
      replacement: fc.constantFrom('-', '', 'x', 'ab'),
      // -1 (every occurrence) weighs more: with an empty `text` it is the runaway of issue 34 (a string grown without end).
      count: weighted([3, fc.constant(-1)], [1, fc.constant(0)], [1, fc.constant(1)], [1, fc.constant(2)]),
      check: checkArb,
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('list' as const),
      source: sourceArb,
      fn: fc.constantFrom(
        'Contains' as const,
        'Sum' as const,
        'Max' as const,
        'SortStrings' as const,
        'Concat' as const,
        'Take' as const,
        'UniqueItems' as const,
        'MaxItems' as const,
      ),
      n: fc.integer({ min: 0, max: 2 }),
      check: checkArb,
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('arith' as const),
      left: sourceArb,
      right: fc.option(sourceArb, { nil: null }),
      op: fc.constantFrom('+' as const, '-' as const, '*' as const),
      constant: fc.integer({ min: -1, max: 3 }),
      check: checkArb,
    }),
  ],
  [1, fc.record({ kind: fc.constant('relation' as const), left: sourceArb, right: sourceArb, op: opArb })],
  [
    1,
    fc.record({
      kind: fc.constant('interpolation' as const),
      parts: fc.array(sourceArb, { minLength: 1, maxLength: 2 }),
      separator: fc.constantFrom('-', ':', ''),
      check: checkArb,
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('if' as const),
      source: sourceArb,
      cond: fc.constantFrom('eq' as const, 'gt' as const, 'present' as const, 'lenGt' as const),
      value: fc.integer({ min: 0, max: 3 }),
      target: sourceArb,
      check: checkArb,
    }),
  ],
);

const policyArb: fc.Arbitrary<PolicyModel> = fc.record({
  wrapper: weighted([3, fc.constant('open' as const)], [1, fc.constant('close' as const)], [3, fc.constant('embed' as const)]),
  fields: fc.array(fieldArb(0), { minLength: 1, maxLength: 5 }),
  computed: fc.array(
    fc.record({
      computed: computedArb,
      hidden: weighted([3, fc.constant(true)], [1, fc.constant(false)]),
      viaLet: weighted([4, fc.constant(false)], [1, fc.constant(true)]),
      split: fc.boolean(),
    }),
    {
      maxLength: 3,
    },
  ),
  redeclare: weighted([3, fc.constant('top' as const)], [1, fc.constant('same' as const)], [1, fc.constant('open' as const)]),
  packageClause: fc.boolean(),
});

const planArb: fc.Arbitrary<DescriptorPlan> = fc.record({
  // Small picks are a field's boundary values (its candidates come in that order), large ones anything it has.
  changes: fc.array(
    fc.record({ field: weighted([2, fc.nat({ max: 1 })], [1, fc.nat({ max: 7 })]), pick: weighted([3, fc.nat({ max: 5 })], [2, fc.nat({ max: 60 })]) }),
    {
      minLength: 1,
      maxLength: 2,
    },
  ),
  extra: weighted([3, fc.constant(null)], [1, fc.record({ key: fc.nat({ max: 15 }), value: fc.nat({ max: EXTRA_VALUES.length - 1 }) })]),
});

/** A policy and the plans of its descriptors (the compliant descriptor is always evaluated too, first). */
export function fuzzCaseArbitrary(plans: number): fc.Arbitrary<FuzzCase> {
  return fc.record({ policy: policyArb, plans: fc.array(planArb, { minLength: plans, maxLength: plans }) });
}

// ---------------------------------------------------------------- rendering

const cueString = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const indent = (text: string) => text.replace(/\n/g, '\n\t');

function renderCheck(check: Check, use: Set<string>): string {
  switch (check.kind) {
    case 'bound':
      return `${check.op}${check.value}`;
    case 'match':
      return `=~${cueString(PATTERNS[check.pattern].source)}`;
    case 'nomatch':
      return `!~${cueString(PATTERNS[check.pattern].source)}`;
    case 'nonEmpty':
      return '!=""';
    case 'runes':
      use.add('strings');
      return `strings.${check.max ? 'MaxRunes' : 'MinRunes'}(${check.n})`;
    case 'affix':
      use.add('strings');
      return `strings.${check.fn}(${cueString(check.text)})`;
    case 'type':
      return check.name;
  }
}

/** The names of fields in one struct: NAMES (or SUBNAMES) by index, a suffix when two fields would share one. */
function fieldNames(fields: readonly Field[], depth: number): string[] {
  const pool = depth === 0 ? NAMES : SUBNAMES;
  const seen = new Set<string>();
  return fields.map((field, index) => {
    let name = pool[field.name % pool.length];
    if (seen.has(name)) name = `${name}${index}`;
    seen.add(name);
    return name;
  });
}

class Renderer {
  readonly use = new Set<string>();
  readonly definitions: string[] = [];

  ty(ty: Ty, depth: number): string {
    switch (ty.kind) {
      case 'int':
      case 'number': {
        // Written as authors write them: `<-1` too, which CUE reads as the token `<-` and refuses.
        const parts = [...(ty.typed || ty.bounds.length === 0 ? [ty.kind] : []), ...ty.bounds.map((bound) => `${bound.op}${bound.value}`)];
        return parts.join(' & ');
      }
      case 'string': {
        const parts = [...(ty.typed || ty.checks.length === 0 ? ['string'] : []), ...ty.checks.map((check) => renderCheck(check, this.use))];
        return parts.join(' & ');
      }
      case 'enum':
        return ty.members
          .map((member, index) => `${ty.preferred !== null && ty.preferred % ty.members.length === index ? '*' : ''}${cueString(member)}`)
          .join(' | ');
      case 'bool':
        return 'bool';
      case 'top':
        return '_';
      case 'nullable': {
        const inner = this.ty(ty.of, depth);
        return `null | ${ty.of.kind === 'enum' ? `(${inner})` : inner}`;
      }
      case 'struct': {
        const body = this.fields(ty.fields, depth + 1, ty.open);
        if (!ty.definition) return `{${body.length === 0 ? '' : `\n\t${indent(body.join('\n'))}\n`}}`;
        const name = `#D${this.definitions.length}`;
        this.definitions.push(`${name}: {\n\t${indent(body.join('\n'))}\n}`);
        return name;
      }
      case 'map': {
        const { source } = KEY_PATTERNS[ty.keys % KEY_PATTERNS.length];
        return `{[${source === null ? 'string' : `=~${cueString(source)}`}]: ${this.ty(ty.value, depth + 1)}}`;
      }
      case 'list': {
        const element = this.ty(ty.element, depth + 1);
        const list = ty.nonEmpty ? `[${element}, ...${element}]` : `[...${element}]`;
        if (ty.validator === 'none') return list;
        this.use.add('list');
        return `${list} & ${ty.validator === 'unique' ? 'list.UniqueItems()' : `list.MaxItems(${ty.max})`}`;
      }
    }
  }

  fields(fields: readonly Field[], depth: number, open: boolean): string[] {
    const names = fieldNames(fields, depth);
    const lines = fields.map((field, index) => `${names[index]}${field.optional ? '?' : ''}: ${this.ty(field.ty, depth)}`);
    return open ? [...lines, '...'] : lines;
  }
}

/** A place computed values can read: a top-level field, or a field of a top-level struct (`owner.email`). */
interface Place {
  readonly path: string;
  readonly top: string;
  readonly ty: Ty;
}

function placesOf(policy: PolicyModel): Place[] {
  const names = fieldNames(policy.fields, 0);
  const places: Place[] = [];
  policy.fields.forEach((field, index) => {
    places.push({ path: names[index], top: names[index], ty: field.ty });
    if (field.ty.kind === 'struct') {
      const subnames = fieldNames(field.ty.fields, 1);
      field.ty.fields.forEach((subfield, at) => places.push({ path: `${names[index]}.${subnames[at]}`, top: names[index], ty: subfield.ty }));
    }
  });
  return places;
}

/** A declaration at a place: `size: >=min`, or `owner: email: =~"@"` for a field of a struct. */
const declareAt = (place: Place, value: string) =>
  place.path === place.top ? `${place.top}: ${value}` : `${place.top}: ${place.path.slice(place.top.length + 1)}: ${value}`;

type Want = 'string' | 'number' | 'scalar' | 'sized' | 'keyed' | 'collection' | 'list' | 'any';

const unwrap = (ty: Ty): Ty => (ty.kind === 'nullable' ? ty.of : ty);

function fits(ty: Ty, want: Want): boolean {
  const kind = unwrap(ty).kind;
  const is = (...kinds: Ty['kind'][]) => kinds.includes(kind);
  switch (want) {
    case 'string':
      return is('string', 'enum');
    case 'number':
      return is('int', 'number');
    case 'scalar':
      return is('string', 'enum', 'int', 'number', 'bool');
    case 'sized':
      return is('string', 'enum', 'map', 'struct', 'list');
    case 'keyed':
      return is('map', 'struct');
    case 'collection':
      return is('map', 'struct', 'list');
    case 'list':
      return is('list');
    case 'any':
      return true;
  }
}

/** The place a source index names among those of the wanted type; none: the computed value is left out. */
function pick(places: readonly Place[], source: Source, want: Want): Place | undefined {
  const fitting = places.filter((place) => fits(place.ty, want));
  return fitting.length > 0 ? fitting[source % fitting.length] : undefined;
}

type ValueKind = 'string' | 'number' | 'any';

/** The kind of value a type's values are, for the checks applied to them. */
function valueKind(ty: Ty | undefined): ValueKind {
  const kind = ty && unwrap(ty).kind;
  return kind === 'string' || kind === 'enum' ? 'string' : kind === 'int' || kind === 'number' ? 'number' : 'any';
}

/** The kind of the elements of a collection (map values, list elements). */
function elementKind(ty: Ty): ValueKind {
  const inner = unwrap(ty);
  return valueKind(inner.kind === 'map' ? inner.value : inner.kind === 'list' ? inner.element : undefined);
}

/** A check made to fit the value it applies to (a bound for a number, a pattern for a string); type checks stay as drawn. */
function fitCheck(check: Check, kind: ValueKind): Check {
  const stringy = check.kind === 'match' || check.kind === 'nomatch' || check.kind === 'nonEmpty' || check.kind === 'runes' || check.kind === 'affix';
  if (kind === 'number' && stringy) {
    const seed = check.kind === 'match' || check.kind === 'nomatch' ? check.pattern : check.kind === 'runes' ? check.n : 1;
    return { kind: 'bound', op: OPS[seed % OPS.length], value: seed % 4 };
  }
  if (kind === 'string' && check.kind === 'bound') return { kind: check.op === '!=' ? 'nonEmpty' : 'match', pattern: check.value % PATTERNS.length } as Check;
  return check;
}

/** The script of a policy: what CUE v0.4 and the native evaluator are both given. */
export function renderPolicy(policy: PolicyModel): string {
  return render(policy).script;
}

/** The script, and the top-level fields its computed values read. */
function render(policy: PolicyModel): { script: string; read: ReadonlySet<string> } {
  const renderer = new Renderer();
  const places = placesOf(policy);
  const read = new Set<string>();
  const ref = (place: Place) => {
    read.add(place.top);
    return place.path;
  };
  const checkFor = (check: Check, kind: ValueKind) => renderCheck(fitCheck(check, kind), renderer.use);
  const computedLines: string[] = [];
  policy.computed.forEach(({ computed, hidden, viaLet, split }, index) => {
    const name = `${hidden ? '_' : ''}c${index}`;
    // An expression and the check it must pass; or whole lines (comprehensions, relations, `if`).
    let expression: string | undefined;
    let check: string | undefined;
    switch (computed.kind) {
      case 'count': {
        const place = pick(
          places,
          computed.source,
          computed.form === 'keys' || computed.form === 'filter' ? 'keyed' : computed.form === 'len' ? 'sized' : 'collection',
        );
        if (!place) return;
        const source = ref(place);
        expression =
          computed.form === 'keys'
            ? `len([for k, _ in ${source} {k}])`
            : computed.form === 'values'
              ? `len([for v in ${source} {v}])`
              : computed.form === 'filter'
                ? `len([for k, v in ${source} if v == "x" {k}])`
                : `len(${source})`;
        check = `${computed.op}${computed.value}`;
        break;
      }
      case 'each': {
        const place = pick(places, computed.source, computed.form === 'keys' ? 'keyed' : 'collection');
        if (!place) return;
        const source = ref(place);
        const rendered = checkFor(computed.check, computed.form === 'keys' ? 'string' : elementKind(place.ty));
        if (computed.form === 'fields') computedLines.push(`for k, v in ${source} {\n\t"check_\\(k)": v & ${rendered}\n}`);
        else computedLines.push(`${name}: [for k, v in ${source} {${computed.form === 'keys' ? 'k' : 'v'} & ${rendered}}]`);
        return;
      }
      case 'strings': {
        const place = computed.literal === null ? pick(places, computed.source, 'string') : undefined;
        if (computed.literal === null && !place) return;
        renderer.use.add('strings');
        const source = place ? ref(place) : cueString(computed.literal as string);
        const text = cueString(computed.text);
        const boolean = computed.fn === 'HasPrefix' || computed.fn === 'HasSuffix' || computed.fn === 'Contains';
        expression =
          computed.fn === 'Replace'
            ? `strings.Replace(${source}, ${text}, ${cueString(computed.replacement)}, ${computed.count})`
            : computed.fn === 'Repeat'
              ? `strings.Repeat(${source}, ${Math.max(0, computed.count)})`
              : computed.fn === 'Split'
                ? `len(strings.Split(${source}, ${text}))`
                : boolean
                  ? `strings.${computed.fn}(${source}, ${text})`
                  : `strings.${computed.fn}(${source})`;
        check = boolean ? (computed.count >= 0 ? 'true' : 'false') : checkFor(computed.check, computed.fn === 'Split' ? 'number' : 'string');
        break;
      }
      case 'list': {
        const place = pick(places, computed.source, 'list');
        if (!place) return;
        renderer.use.add('list');
        if (computed.fn === 'UniqueItems' || computed.fn === 'MaxItems') {
          computedLines.push(declareAt(place, `list.${computed.fn}(${computed.fn === 'MaxItems' ? computed.n : ''})`));
          return;
        }
        const source = ref(place);
        expression = {
          Contains: `list.Contains(${source}, "a")`,
          Sum: `list.Sum(${source})`,
          Max: `list.Max(${source})`,
          SortStrings: `list.SortStrings(${source})[0]`,
          Concat: `len(list.Concat([${source}, ["x"]]))`,
          Take: `len(list.Take(${source}, ${computed.n}))`,
        }[computed.fn];
        check =
          computed.fn === 'Contains'
            ? computed.n > 0
              ? 'true'
              : 'false'
            : checkFor(computed.check, computed.fn === 'SortStrings' ? elementKind(place.ty) : 'number');
        break;
      }
      case 'arith': {
        const left = pick(places, computed.left, 'number');
        const right = computed.right === null ? undefined : pick(places, computed.right, 'number');
        if (!left) return;
        expression = `(${ref(left)} ${computed.op} ${right ? ref(right) : String(computed.constant)})`;
        check = checkFor(computed.check, 'number');
        break;
      }
      case 'relation': {
        const left = pick(places, computed.left, 'number');
        const right = pick(places, computed.right, 'number');
        if (!left || !right) return;
        computedLines.push(declareAt(left, `${computed.op}${ref(right)}`));
        return;
      }
      case 'interpolation': {
        const parts = computed.parts.map((part) => pick(places, part, 'scalar'));
        if (parts.some((part) => !part)) return;
        expression = `"${parts.map((part) => `\\(${ref(part as Place)})`).join(computed.separator)}"`;
        check = checkFor(computed.check, 'string');
        break;
      }
      case 'if': {
        const place = pick(
          places,
          computed.source,
          computed.cond === 'eq' ? 'string' : computed.cond === 'gt' ? 'number' : computed.cond === 'lenGt' ? 'sized' : 'any',
        );
        const target = pick(places, computed.target, 'any');
        if (!place || !target) return;
        const source = ref(place);
        const condition = {
          eq: `${source} == ${cueString(ENUM_MEMBERS[computed.value % ENUM_MEMBERS.length])}`,
          gt: `${source} > ${computed.value}`,
          present: `${source} != _|_`,
          lenGt: `len(${source}) > ${computed.value}`,
        }[computed.cond];
        computedLines.push(`if ${condition} {\n\t${declareAt(target, checkFor(computed.check, valueKind(target.ty)))}\n}`);
        return;
      }
    }
    if (viaLet) {
      computedLines.push(`let L${index} = ${expression}`);
      expression = `L${index}`;
    }
    computedLines.push(split ? `${name}: ${expression}\n${name}: ${check}` : `${name}: ${expression} & ${check}`);
  });

  const body = renderer.fields(policy.fields, 0, false);
  let main: string;
  const names = fieldNames(policy.fields, 0);
  if (policy.wrapper === 'open') {
    main = body.join('\n');
  } else {
    const opened = policy.wrapper === 'close' ? `close({\n\t${indent(body.join('\n'))}\n})` : `#Product: {\n\t${indent(body.join('\n'))}\n}\n#Product`;
    // What computed values read must be in scope at the top: declared there again.
    const again = policy.fields.flatMap((field, index) => {
      if (!read.has(names[index])) return [];
      const kind = unwrap(field.ty).kind;
      const value =
        policy.redeclare === 'top'
          ? '_'
          : policy.redeclare === 'same'
            ? renderer.ty(field.ty, 0)
            : kind === 'list'
              ? '[...]'
              : kind === 'map' || kind === 'struct'
                ? '{...}'
                : '_';
      return [`${names[index]}: ${value}`];
    });
    main = [opened, ...again].join('\n');
  }
  const imports = [...renderer.use].sort();
  const header = [
    ...(policy.packageClause ? ['package governance', ''] : []),
    ...(imports.length === 1
      ? [`import ${cueString(imports[0])}`, '']
      : imports.length > 1
        ? [`import (\n${imports.map((name) => `\t${cueString(name)}`).join('\n')}\n)`, '']
        : []),
  ];
  return { script: `${[...header, ...renderer.definitions, main, ...computedLines].join('\n')}\n`, read };
}

// ---------------------------------------------------------------- descriptors

/** A field left out of the descriptor. */
const MISSING = Symbol('missing');
type Candidate = Json | typeof MISSING;

function satisfies(value: Json, check: Check): boolean {
  switch (check.kind) {
    case 'bound': {
      if (typeof value !== 'number') return false;
      return { '<': value < check.value, '<=': value <= check.value, '>': value > check.value, '>=': value >= check.value, '!=': value !== check.value }[
        check.op
      ];
    }
    case 'match':
    case 'nomatch':
      return typeof value === 'string' && new RegExp(PATTERNS[check.pattern].source).test(value) === (check.kind === 'match');
    case 'nonEmpty':
      return value !== '';
    case 'runes':
      return typeof value === 'string' && (check.max ? [...value].length <= check.n : [...value].length >= check.n);
    case 'affix':
      return (
        typeof value === 'string' &&
        { HasPrefix: value.startsWith(check.text), HasSuffix: value.endsWith(check.text), Contains: value.includes(check.text) }[check.fn]
      );
    case 'type':
      return check.name === 'string'
        ? typeof value === 'string'
        : check.name === 'bool'
          ? typeof value === 'boolean'
          : typeof value === 'number' && (check.name === 'number' || Number.isInteger(value));
  }
}

function unique(values: readonly Json[]): Json[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Values for a type, the first one compliant (as far as the type alone says), then values at and
 * around its bounds, strings its patterns match and miss, collections of several sizes, other types.
 */
function candidates(ty: Ty): Json[] {
  switch (ty.kind) {
    case 'int':
    case 'number': {
      const step = ty.kind === 'int' ? 1 : 0.5;
      const checks: Check[] = ty.bounds.map((bound) => ({ kind: 'bound', ...bound }));
      let compliant: number | undefined;
      for (let value = 0; value <= 12 && compliant === undefined; value += step) {
        for (const signed of [value, -value]) if (compliant === undefined && checks.every((check) => satisfies(signed, check))) compliant = signed;
      }
      const near = ty.bounds.flatMap((bound) => [bound.value - step, bound.value, bound.value + step]);
      return unique([compliant ?? ty.bounds[0]?.value ?? 1, ...near, String(compliant ?? 1), null, true, ...(ty.kind === 'int' ? [2.5] : []), []]);
    }
    case 'string': {
      const pool = unique([
        ...ty.checks.flatMap((check) =>
          check.kind === 'match' || check.kind === 'nomatch' ? [...PATTERNS[check.pattern].matches, ...PATTERNS[check.pattern].misses] : [],
        ),
        ...ty.checks.flatMap((check) => (check.kind === 'affix' ? [check.text, `${check.text}x`, `x${check.text}`, 'x'] : [])),
        ...ty.checks.flatMap((check) => (check.kind === 'runes' ? [Math.max(0, check.n - 1), check.n, check.n + 1].map((n) => 'a'.repeat(n)) : [])),
        ...STRINGS,
      ]);
      const compliant = pool.find((value) => ty.checks.every((check) => satisfies(value, check))) ?? 'a';
      return unique([compliant, ...pool.slice(0, 12), 1, null, true, {}]);
    }
    case 'enum': {
      const preferred = ty.preferred === null ? 0 : ty.preferred % ty.members.length;
      return unique([ty.members[preferred], ...ty.members, 'other', '', 1, null]);
    }
    case 'bool':
      return [true, false, 'true', 1];
    case 'top':
      return ['x', 1, {}, [], null];
    case 'nullable': {
      const inner = candidates(ty.of);
      return unique([inner[0], null, ...inner.slice(1)]);
    }
    case 'struct': {
      const names = fieldNames(ty.fields, 1);
      const compliant: Record<string, Json> = {};
      const variants = ty.fields.map((field, index) => {
        const values: Candidate[] = [...candidates(field.ty), MISSING];
        compliant[names[index]] = values[0] as Json;
        return values;
      });
      const changed = variants.flatMap((values, index) =>
        values.slice(1).map((value) => {
          const copy = { ...compliant };
          if (value === MISSING) delete copy[names[index]];
          else copy[names[index]] = value;
          return copy;
        }),
      );
      return unique([compliant, { ...compliant, extra: 'x' }, ...changed, {}, 'x', [], null]);
    }
    case 'map': {
      const { keys, miss } = KEY_PATTERNS[ty.keys % KEY_PATTERNS.length];
      const values = candidates(ty.value);
      const sized = (size: number) => Object.fromEntries(keys.slice(0, size).map((key) => [key, values[0]]));
      const bad = values.slice(1, 6).map((value) => ({ [keys[0]]: value }));
      return unique([sized(1), sized(0), sized(2), sized(3), sized(4), ...bad, { [miss]: values[0] }, { [miss]: values[1] ?? null }, 'x', [], null]);
    }
    case 'list': {
      const values = candidates(ty.element);
      const [first, second = 'x'] = values;
      const bad = values.slice(1, 6).map((value) => [value]);
      return unique([[first], [], [first, first], [first, second], [first, second, first, second], ...bad, 'x', {}, null]);
    }
  }
}

function fieldCandidates(field: Field): Candidate[] {
  return [...candidates(field.ty), MISSING];
}

/** The names of the policy's top-level fields (what a descriptor's data may declare in the script without opening it). */
export function topLevelNames(policy: PolicyModel): string[] {
  return fieldNames(policy.fields, 0);
}

/** The policy's compliant descriptor (its fields' first candidates), then one descriptor per plan. */
export function descriptorsOf(policy: PolicyModel, plans: readonly DescriptorPlan[]): Json[] {
  const names = fieldNames(policy.fields, 0);
  const options = policy.fields.map(fieldCandidates);
  // A plan's changes name the fields that computed values read first: where a policy's rules meet.
  const { read } = render(policy);
  const order = [...names.keys()].sort((a, b) => Number(read.has(names[b])) - Number(read.has(names[a])));
  const compliant: Record<string, Json> = {};
  options.forEach((values, index) => {
    compliant[names[index]] = values[0] as Json;
  });
  const regular = policy.computed.flatMap(({ hidden }, index) => (hidden ? [] : [`c${index}`]));
  const keys = [...EXTRA_KEYS, ...regular];
  return [
    compliant,
    ...plans.map((plan) => {
      const descriptor: Record<string, Json> = structuredClone(compliant);
      for (const { field, pick: chosen } of plan.changes) {
        const index = order[field % names.length];
        const value = options[index][chosen % options[index].length];
        if (value === MISSING) delete descriptor[names[index]];
        else descriptor[names[index]] = structuredClone(value);
      }
      if (plan.extra) descriptor[keys[plan.extra.key % keys.length]] = structuredClone(EXTRA_VALUES[plan.extra.value % EXTRA_VALUES.length]);
      return descriptor;
    }),
  ];
}
