/**
 * Unification of values that are not structs or lists (spec.md, "Unification", "Bounds",
 * "Disjunction"), with CUE's own messages for conflicts.
 */
import { InvalidRegexp } from '../internal/re2';
import type { Position } from '../syntax/scanner';
import {
  bottom,
  type Bound,
  boundKinds,
  compareOrdered,
  type Constraint,
  type Disjunction,
  formatBound,
  formatConstraint,
  formatValue,
  isScalar,
  kindName,
  kindOf,
  sameValidator,
  type Scalar,
  scalarEquals,
  unsatisfied,
  type Validator,
  type Value,
} from './values';

export const constraint = (kinds: number, bounds: readonly Bound[] = [], validators: readonly Validator[] = [], at: readonly Position[] = []): Constraint => ({
  t: 'constraint',
  kinds,
  bounds,
  validators,
  at,
});

const isConcrete = (value: Value) => isScalar(value);

function conflict(a: Value, b: Value, at: readonly Position[]): Value {
  // CUE names the values in the order they were unified, except two concrete ones: the later first.
  const [first, second] = isConcrete(a) && isConcrete(b) ? [b, a] : [a, b];
  const kindsFirst = kindOf(first);
  const kindsSecond = kindOf(second);
  const mismatch = (kindsFirst & kindsSecond) === 0 ? ` (mismatched types ${kindName(kindsFirst)} and ${kindName(kindsSecond)})` : '';
  return bottom(`conflicting values ${formatValue(first)} and ${formatValue(second)}${mismatch}`, at);
}

function compare(op: Bound['op'], value: Scalar, limit: Scalar): boolean | undefined {
  if (op === '!=') return !(value.t === limit.t || (value.t === 'num' && limit.t === 'num')) || !scalarEquals(value, limit);
  const ordered = (value.t === 'num' && limit.t === 'num') || (value.t === 'string' && limit.t === 'string') || (value.t === 'bytes' && limit.t === 'bytes');
  if (!ordered) return undefined;
  return compareOrdered(op as '<' | '<=' | '>' | '>=', value.t === 'num' ? value : value.v, limit.t === 'num' ? limit : (limit.v as string));
}

/**
 * The characters the regular expressions of unifying `a` and `b` read: a string's length once per `=~` or `!~`
 * bound of the other (RE2 matches in time linear in the text, which the step budget is charged for).
 */
export function matchedCharacters(a: Value, b: Value): number {
  if (a.t === 'constraint') return b.t === 'string' || b.t === 'bytes' ? patternsOf(a) * b.v.length : 0;
  if (b.t === 'constraint') return a.t === 'string' || a.t === 'bytes' ? patternsOf(b) * a.v.length : 0;
  return 0;
}

function patternsOf(rule: Constraint): number {
  let patterns = 0;
  for (const bound of rule.bounds) if (bound.op === '=~' || bound.op === '!~') patterns++;
  return patterns;
}

/** Whether a concrete value satisfies a bound; a message when it does not. */
function checkBound(value: Scalar, bound: Bound): string | undefined {
  if (bound.op === '=~' || bound.op === '!~') {
    if (value.t !== 'string' && value.t !== 'bytes') return undefined;
    const pattern = bound.pattern as NonNullable<Bound['pattern']>;
    if (pattern instanceof InvalidRegexp) return `invalid regexp: ${pattern.message}`;
    const matches = pattern.test(value.v);
    return matches === (bound.op === '=~') ? undefined : `invalid value ${formatValue(value)} (out of bound ${formatBound(bound)})`;
  }
  const holds = compare(bound.op, value, bound.value);
  return holds === false ? `invalid value ${formatValue(value)} (out of bound ${formatBound(bound)})` : undefined;
}

/** A conflict between a concrete value and a constraint, named in the order they were unified. */
function clash(value: Scalar, other: Value, where: readonly Position[], valueFirst: boolean): Value {
  return valueFirst ? conflict(value, other, where) : conflict(other, value, where);
}

function applyConstraint(value: Scalar, rule: Constraint, at: readonly Position[], valueFirst: boolean): Value {
  const kinds = kindOf(value);
  if ((kinds & rule.kinds) === 0) {
    // A `!=` bound is a check CUE runs on the value, which it names first (`conflicting values null and !=null`).
    const checked = rule.bounds.some((bound) => bound.op === '!=' && (boundKinds(bound) & kinds) === 0);
    return clash(value, rule, [...at, ...rule.at], valueFirst || checked);
  }
  for (const bound of rule.bounds) {
    if ((boundKinds(bound) & kinds) === 0)
      return clash(value, constraint(boundKinds(bound), [bound], [], bound.at ? [bound.at] : []), [...at, ...(bound.at ? [bound.at] : [])], valueFirst);
    const problem = checkBound(value, bound);
    if (problem) return bottom(problem, [...(bound.at ? [bound.at] : []), ...at]);
  }
  for (const validator of rule.validators) {
    if ((validator.kinds & kinds) === 0) return clash(value, constraint(validator.kinds, [], [validator], validator.at), [...at, ...validator.at], valueFirst);
    const verdict = validator.check(value);
    if (verdict === true) continue;
    if (verdict === false || verdict.validation) return unsatisfied(formatValue(value), validator, verdict, [...validator.at, ...at]);
    return verdict;
  }
  return value;
}

function mergeConstraints(a: Constraint, b: Constraint, at: readonly Position[]): Value {
  const kinds = a.kinds & b.kinds;
  if (kinds === 0) return conflict(a, b, [...a.at, ...b.at, ...at]);
  const seen = new Set(a.bounds.map(formatBound));
  const bounds = [...a.bounds, ...b.bounds.filter((bound) => !seen.has(formatBound(bound)))];
  const validators = [...a.validators, ...b.validators.filter((validator) => !a.validators.some((other) => sameValidator(other, validator)))];
  return narrowRange(kinds, bounds, validators, [...a.at, ...b.at]);
}

const isNumberExcluded = (bound: Bound): boolean => bound.op === '!=' && bound.value.t === 'num';

const LOWER = new Set(['>', '>=']);

const UPPER = new Set(['<', '<=']);

/** `!="b" & =~"c"` is `=~"c"`: a string `!=` that a `=~` or `!~` already excludes is dropped (adt.SimplifyBounds). */
function withoutImpliedNotEqual(bounds: readonly Bound[]): readonly Bound[] {
  let notEqual = false;
  let pattern = false;
  for (const bound of bounds) {
    if (bound.op === '!=') notEqual ||= bound.value.t === 'string';
    else if (bound.op === '=~' || bound.op === '!~') pattern = true;
  }
  if (!notEqual || !pattern) return bounds;
  return bounds.filter(
    (bound) =>
      bound.op !== '!=' ||
      bound.value.t !== 'string' ||
      !bounds.some(
        (other) => (other.op === '=~' || other.op === '!~') && !(other.pattern instanceof InvalidRegexp) && checkBound(bound.value, other) !== undefined,
      ),
  );
}

/**
 * Ordered bounds of one kind keep their tightest lower and upper limit (`>=3 & >5` is `>5`), an
 * empty range is an error (`>1 & <0`: incompatible number bounds), a single point is that value
 * (`>=3 & <=3` is 3), and `!=` outside the range is dropped.
 */
function narrowRange(kinds: number, all: readonly Bound[], validators: readonly Validator[], at: readonly Position[]): Value {
  const bounds = withoutImpliedNotEqual(all);
  const ordered = bounds.filter((bound) => LOWER.has(bound.op) || UPPER.has(bound.op));
  if (ordered.length === 0 || (ordered.length === 1 && !bounds.some(isNumberExcluded))) return constraint(kinds, bounds, validators, at);
  const tighter = (x: Bound, y: Bound, lower: boolean) => {
    const [p, q] = [x.value as { v: number | string }, y.value as { v: number | string }];
    if (p.v !== q.v) return compareOrdered(lower ? '>' : '<', p.v, q.v);
    return x.op.length === 1; // strict beats inclusive at the same limit
  };
  const sameType = (x: Bound, y: Bound) => (x.value.t === 'num') === (y.value.t === 'num') && (x.value.t === 'num' || x.value.t === y.value.t);
  let lower: Bound | undefined;
  let upper: Bound | undefined;
  for (const bound of ordered) {
    if (LOWER.has(bound.op)) lower = !lower || (sameType(lower, bound) && tighter(bound, lower, true)) ? bound : lower;
    else upper = !upper || (sameType(upper, bound) && tighter(bound, upper, false)) ? bound : upper;
  }
  if (lower && upper && sameType(lower, upper)) {
    const [low, high] = [(lower.value as { v: number | string }).v, (upper.value as { v: number | string }).v];
    const strict = lower.op === '>' || upper.op === '<';
    const isInt = (kinds & 12) === 4 && lower.value.t === 'num';
    const empty =
      compareOrdered('>', low, high) ||
      (low === high && strict) ||
      (isInt &&
        Math.ceil(lower.op === '>' ? Math.floor(Number(low)) + 1 : Number(low)) > Math.floor(upper.op === '<' ? Math.ceil(Number(high)) - 1 : Number(high)));
    if (empty) {
      const kind = lower.value.t === 'num' ? (isInt ? 'integer' : 'number') : lower.value.t;
      return bottom(`incompatible ${kind} bounds ${formatBound(upper)} and ${formatBound(lower)}`, [
        ...(upper.at ? [upper.at] : []),
        ...(lower.at ? [lower.at] : []),
      ]);
    }
    // `>=3 & <=3 & int` is 3; floats keep their bounds, as CUE does.
    if (low === high && isInt && lower.value.t === 'num' && lower.value.int) return lower.value;
  }
  const kept = bounds.filter((bound) => {
    if (LOWER.has(bound.op) || UPPER.has(bound.op))
      return bound === lower || bound === upper || (!(lower && sameType(lower, bound)) && !(upper && sameType(upper, bound)));
    if (bound.op !== '!=' || bound.value.t !== 'num') return true;
    return !((lower && lower.value.t === 'num' && checkBound(bound.value, lower)) || (upper && upper.value.t === 'num' && checkBound(bound.value, upper)));
  });
  return constraint(kinds, kept, validators, at);
}

/** `string` and `string`, `_` and `_`: one member of a disjunction. */
function sameConstraint(a: Value, b: Value): boolean {
  if (a.t === 'top' || b.t === 'top') return a.t === b.t;
  return a.t === 'constraint' && b.t === 'constraint' && a.kinds === b.kinds && formatConstraint(a) === formatConstraint(b);
}

/** Members equal as scalars or constraints are one member, default if either was. */
export function disjunction(values: readonly Value[], defaults: readonly boolean[], defaultsLost = false): Value {
  const members: Value[] = [];
  const flags: boolean[] = [];
  values.forEach((value, index) => {
    if (value.t === 'bottom') return;
    const same = isScalar(value)
      ? members.findIndex((member) => isScalar(member) && member.t === value.t && scalarEquals(member, value))
      : value.t === 'constraint' || value.t === 'top'
        ? members.findIndex((member) => sameConstraint(member, value))
        : -1;
    if (same >= 0) flags[same] ||= defaults[index];
    else {
      members.push(value);
      flags.push(defaults[index]);
    }
  });
  if (members.length === 0) return values.find((value) => value.t === 'bottom') ?? bottom('empty disjunction');
  if (members.length === 1) return members[0];
  if (flags.some(Boolean)) return { t: 'disj', values: members, defaults: flags };
  return defaultsLost ? { t: 'disj', values: members, defaults: flags, defaultsLost } : { t: 'disj', values: members, defaults: flags };
}

function unifyDisjunction(d: Disjunction, other: Value, at: readonly Position[]): Value {
  // A concrete value against a disjunction of concrete values (`kind: "a" | "b"` and the data's "a"):
  // the member it equals, found without writing the conflicts of the others, which only an empty disjunction reports.
  if (isScalar(other)) {
    const same = d.values.find(
      (member) =>
        isScalar(member) && member.t === other.t && scalarEquals(member, other) && (member.t !== 'num' || other.t !== 'num' || member.int === other.int),
    );
    if (same) return same;
  }
  const otherMembers = other.t === 'disj' ? other.values : [other];
  const otherDefaults = other.t === 'disj' ? other.defaults : [false];
  const otherHasDefault = otherDefaults.some(Boolean);
  const ownHasDefault = d.defaults.some(Boolean);
  const values: Value[] = [];
  const pairs: number[] = [];
  const errors: Value[] = [];
  // A side whose defaults were all eliminated counts as unmarked (spec.md, "Default values"):
  // `*42 | _` & `*43 | bool` is `*43 | bool`.
  let ownKept = false;
  let otherKept = false;
  d.values.forEach((member, i) =>
    otherMembers.forEach((otherMember, j) => {
      const unified = unifyScalars(member, otherMember, at);
      if (unified.t === 'bottom') {
        errors.push(unified);
        return;
      }
      values.push(unified);
      pairs.push(i, j);
      ownKept ||= d.defaults[i];
      otherKept ||= otherDefaults[j];
    }),
  );
  if (values.length === 0) {
    const first = errors[0];
    if (first?.t === 'bottom' && errors.length === 1) return first;
    return {
      ...bottom(`${errors.length} errors in empty disjunction: ${first?.t === 'bottom' ? first.message : ''}`, first?.t === 'bottom' ? first.at : at),
      count: errors.length + 1,
    };
  }
  // Members that are not defaults stay so: `(int | *4) & (int | *1) & (int | *3)` has no default (issue3958).
  if (d.defaultsLost || (other.t === 'disj' && other.defaultsLost))
    return disjunction(
      values,
      values.map(() => false),
      true,
    );
  const ownMarked = ownHasDefault && ownKept;
  const otherMarked = otherHasDefault && otherKept;
  const defaults = values.map(
    (_, k) => (ownMarked ? d.defaults[pairs[2 * k]] : true) && (otherMarked ? otherDefaults[pairs[2 * k + 1]] : true) && (ownMarked || otherMarked),
  );
  return disjunction(values, defaults, ownMarked || otherMarked);
}

/** Unifies two values neither of which is a struct or list. */
export function unifyScalars(a: Value, b: Value, at: readonly Position[] = []): Value {
  if (a.t === 'top') return b;
  if (b.t === 'top') return a;
  if (a.t === 'bottom') return a;
  if (b.t === 'bottom') return b;
  if (a.t === 'disj') return unifyDisjunction(a, b, at);
  if (b.t === 'disj') return unifyDisjunction(b, a, at);
  if (isScalar(a) && isScalar(b)) {
    if (a.t === b.t && scalarEquals(a, b)) return a.t === 'num' && b.t === 'num' && a.int !== b.int ? conflict(a, b, at) : a;
    return conflict(a, b, at);
  }
  if (isScalar(a) && b.t === 'constraint') return applyConstraint(a, b, at, true);
  if (isScalar(b) && a.t === 'constraint') return applyConstraint(b, a, at, false);
  if (a.t === 'constraint' && b.t === 'constraint') return mergeConstraints(a, b, at);
  return conflict(a, b, at);
}

/** The constraint a kind name stands for (`int`, `string`...). */
export const kindConstraint = (kinds: number): Constraint => constraint(kinds);

const MAYBE = 0;

const IS_DEFAULT = 1;
const NOT_DEFAULT = 2;

type Mode = typeof MAYBE | typeof IS_DEFAULT | typeof NOT_DEFAULT;

/** CUE's combineDefault2 (internal/core/adt/disjunct2.go): a side that dropped its defaults is unmarked; then not-default over default over unmarked. */
const combine = (a: Mode, b: Mode, dropsA = false, dropsB = false): Mode => Math.max(dropsA ? MAYBE : a, dropsB ? MAYBE : b) as Mode;

const modesOf = (value: Value): Mode[] =>
  value.t === 'disj'
    ? value.defaults.map((isDefault) => (value.defaultsLost || value.defaults.some(Boolean) ? (isDefault ? IS_DEFAULT : NOT_DEFAULT) : MAYBE))
    : [MAYBE];

const membersOf = (value: Value): readonly Value[] => (value.t === 'disj' ? value.values : [value]);

/**
 * A disjunction unified into a value that has one already, one disjunct of it after the other, as CUE's
 * crossProduct does (internal/core/adt/disjunct2.go): a term that is itself a disjunction (`*(*"a" | string)`)
 * is evaluated within each disjunct, so its defaults are dropped there only when none of them survives there.
 * `("a" | "b") & (*(*"a" | string) | string)` is `*"a" | *"b"` (disjunctions/specdeviation.txtar, staged).
 * Undefined when nothing survives: the disjunction is then unified as a whole, for its errors.
 */
export function crossDisjunction(
  base: Value,
  terms: readonly { readonly value: Value; readonly marked: boolean }[],
  at: readonly Position[],
): Value | undefined {
  const anyMarked = terms.some((term) => term.marked);
  const baseModes = modesOf(base);
  const results: { value?: Value; mode: Mode; term: Mode; nested?: { value: Value; mode: Mode }[] }[] = [];
  let leftDrops = true;
  let rightDrops = true;
  membersOf(base).forEach((left, i) => {
    const mode = baseModes[i];
    for (const term of terms) {
      const termMode: Mode = anyMarked ? (term.marked ? IS_DEFAULT : NOT_DEFAULT) : MAYBE;
      const inner = term.value.t === 'disj' ? nestedResults(left, mode, termMode, term.value, at) : undefined;
      const value = inner ? undefined : unifyScalars(left, term.value, at);
      if (inner ? inner.length === 0 : value?.t === 'bottom') continue;
      if (mode === IS_DEFAULT) leftDrops = false;
      if (termMode === IS_DEFAULT) rightDrops = false;
      if (inner?.length === 1) results.push({ value: inner[0].value, mode: mode === MAYBE ? inner[0].mode : mode, term: termMode });
      else results.push({ value, mode, term: termMode, nested: inner });
    }
  });
  if (results.length === 0) return undefined;
  const values: Value[] = [];
  const modes: Mode[] = [];
  for (const result of results) {
    if (!result.nested) {
      values.push(result.value as Value);
      modes.push(combine(result.mode, result.term, leftDrops, rightDrops));
      continue;
    }
    for (const member of result.nested) {
      values.push(member.value);
      modes.push(combine(result.mode, combine(result.term, member.mode), leftDrops, false));
    }
  }
  return disjunction(
    values,
    modes.map((mode) => mode === IS_DEFAULT),
  );
}

/** A disjunction evaluated within one disjunct (`left`, of mode `mode`, chosen with a term of mode `termMode`). */
function nestedResults(left: Value, mode: Mode, termMode: Mode, nested: Disjunction, at: readonly Position[]): { value: Value; mode: Mode }[] {
  const leftDrops = !(mode === IS_DEFAULT || termMode === IS_DEFAULT);
  const innerModes = modesOf(nested);
  const survivors: { value: Value; inner: Mode }[] = [];
  nested.values.forEach((member, k) => {
    const value = unifyScalars(left, member, at);
    if (value.t !== 'bottom') survivors.push({ value, inner: innerModes[k] });
  });
  const rightDrops = !survivors.some((survivor) => survivor.inner === IS_DEFAULT);
  const out: { value: Value; mode: Mode }[] = [];
  for (const survivor of survivors) {
    const result = { value: survivor.value, mode: combine(mode, survivor.inner, leftDrops, rightDrops) };
    const same = out.find(
      (other) => isScalar(other.value) && isScalar(result.value) && other.value.t === result.value.t && scalarEquals(other.value, result.value),
    );
    if (!same) out.push(result);
    else if (result.mode === IS_DEFAULT) same.mode = IS_DEFAULT;
  }
  return out;
}
