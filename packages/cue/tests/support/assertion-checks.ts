import type { Inspected } from '@cgp/cue';
import { type Decl, type Expr, type Field, parseExpression, type StructLit } from '@cgp/cue/syntax';

import { parseTestAttribute, type Path, type TestAttribute } from './test-attributes';

/**
 * Checks `@test` assertions against the evaluator's plain-data tree, as inline-test-attributes.md says:
 * the expected value is walked as syntax, never evaluated, so an evaluator bug cannot hide a mismatch.
 * A check returns undefined when it holds, else a failure: a `category` (generic, to count the
 * commonest failures) and a `detail`.
 */
export interface Failure {
  readonly category: string;
  readonly detail: string;
}

const fail = (category: string, detail: string): Failure => ({ category, detail });

export function checkAssertion(root: Inspected, path: Path, attribute: TestAttribute): Failure | undefined {
  const at = attribute.options.get('at');
  const target = at === undefined ? path : [...path, ...parsePath(at)];
  const found = navigate(root, target);
  if ('category' in found) return found;
  switch (attribute.directive) {
    case 'eq': {
      const source = attribute.positional[0];
      // CUE's runner (internal/cuetxtar/inline.go) treats an empty @test(eq) as a placeholder to fill, not a check.
      if (source === undefined) return undefined;
      let expected: Expr;
      try {
        expected = parseExpression(source);
      } catch (error) {
        return fail('expected value does not parse', `${source}: ${(error as Error).message}`);
      }
      return compare(expected, found, target, new Set());
    }
    case 'err':
      return checkError(attribute, found, target);
    case 'kind':
      return checkKind(attribute.value ?? '', found, target);
    case 'closed': {
      const value = resolveDefault(found);
      const closed = attribute.value !== 'false';
      if (value.kind === 'bottom') return fail('closed: an error', `${show(target)}: ${describe(value)}`);
      // CUE's runner asks Value.IsClosed (cue/types.go), which any value has: a scalar's field is closed when
      // CUE's vertex of it is closed recursively (`Y: #info.X`); a disjunction's default is the field's value.
      const got = value.kind === 'struct' ? value.closed : found.kind !== 'struct' && found.kind !== 'bottom' && found.closed === true;
      return got === closed ? undefined : fail(`${value.kind === 'struct' ? 'struct' : 'value'} ${closed ? 'not closed' : 'closed'}`, show(target));
    }
  }
  return undefined;
}

/** The value at a path; an error met on the way is the value there too (CUE's lookup returns it). */
function navigate(root: Inspected, path: Path): Inspected | Failure {
  let current = root;
  for (const step of path) {
    current = resolveDefault(current);
    if (current.kind === 'bottom') return current;
    const next =
      current.kind === 'struct'
        ? current.fields.find((field) => field.label === step)?.value
        : current.kind === 'list'
          ? current.elements[Number(step)]
          : undefined;
    if (!next) return fail('path not found', `${show(path)}: no ${String(step)} in ${describe(current)}`);
    current = next;
  }
  return current;
}

/** A disjunction with one default stands for that default where a single value is needed. */
function resolveDefault(value: Inspected): Inspected {
  if (value.kind !== 'disjunction') return value;
  const defaults = value.disjuncts.filter((disjunct) => disjunct.isDefault);
  return defaults.length === 1 ? defaults[0].value : value;
}

/**
 * `at=` is followed by the caller: `path` is where the target is. `code=` may list alternatives: `incomplete|eval`.
 * Without `any`, a struct or list whose regular or required fields (definitions and hidden ones too) or elements hold an
 * error is erroneous too: the conformance files assert `@test(err)` on such values (`e4: [1, 2, ...<=5] & [1, 2, 4, 8]`),
 * as CUE reports them (CUE's AddChildError counts definitions and hidden fields as well, and every arc up to ArcRequired).
 */
function checkError(attribute: TestAttribute, target: Inspected, path: Path): Failure | undefined {
  const code = attribute.options.get('code');
  const wanted = code
    ?.replace(/[()]/g, '')
    .split('|')
    .map((name) => (name.startsWith('structural') ? 'structural-cycle' : name));
  const contains = attribute.options.get('contains');
  const any = attribute.positional.includes('any');
  const errors = bottomsIn(target, path, any);
  if (errors.length === 0) return fail(any ? 'err any: no error below' : 'expected an error, got a value', `${show(path)}: ${describe(target)}`);
  const coded = errors.filter(({ error }) => !wanted || wanted.includes(error.code));
  if (coded.length === 0) return fail(`err code ${code}, got ${errors[0].error.code}`, `${show(path)}: ${errors[0].error.message}`);
  if (contains !== undefined && !coded.some((found) => mentions(found, unquote(contains))))
    return fail('err message differs', `${show(path)}: want "${unquote(contains)}", got ${coded.map(({ error }) => `"${error.message}"`).join(', ')}`);
  return undefined;
}

/**
 * Whether an error's message contains the text of `contains=`. CUE's files quote either the printed message, with
 * its path or the path of the let it arose in (`a.b: undefined field: c`), or the message's format (`undefined field: %s`).
 */
function mentions({ error, path }: { error: Extract<Inspected, { kind: 'bottom' }>; path: Path }, text: string): boolean {
  const pattern = new RegExp(
    text
      .split(/%[svdq]/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*?'),
  );
  return (
    pattern.test(error.message) ||
    pattern.test(`${cuePath(path)}: ${error.message}`) ||
    (error.origin !== undefined && pattern.test(`${error.origin}: ${error.message}`))
  );
}

/** A path as CUE prints it before a message: labels that are not identifiers quoted (`service."node-exporter".spec`). */
const cuePath = (path: Path): string =>
  path.map((label) => (typeof label === 'string' && !/^[#_]*[A-Za-z_$][\w$]*$/.test(label) ? JSON.stringify(label) : String(label))).join('.');

/** The errors in a value, with their paths: in all its descendants, or only in those that make it erroneous (fields not optional, elements). */
function bottomsIn(value: Inspected, path: Path, all: boolean): { error: Extract<Inspected, { kind: 'bottom' }>; path: Path }[] {
  switch (value.kind) {
    case 'bottom':
      return [{ error: value, path }];
    case 'struct': {
      const fields = value.fields.filter((field) => all || field.constraint !== '?').flatMap((field) => bottomsIn(field.value, [...path, field.label], all));
      return value.error ? [{ error: value.error, path }, ...fields] : fields;
    }
    case 'list':
      return value.elements.flatMap((element, index) => bottomsIn(element, [...path, index], all));
    case 'disjunction':
      return all ? value.disjuncts.flatMap((disjunct) => bottomsIn(disjunct.value, path, all)) : [];
    default:
      return [];
  }
}

function checkKind(expected: string, value: Inspected, path: Path): Failure | undefined {
  const allowed = new Set(
    expected
      .split('|')
      .map((kind) => ({ _: 'top', '_|_': 'bottom', number: 'int|float' })[kind.trim()] ?? kind.trim())
      .flatMap((kind) => kind.split('|')),
  );
  const actual = kindsOf(resolveDefault(value));
  return actual.every((kind) => allowed.has(kind)) ? undefined : fail('kind differs', `${show(path)}: want ${expected}, got ${actual.join('|')}`);
}

function kindsOf(value: Inspected): string[] {
  switch (value.kind) {
    case 'constraint':
      return value.kinds.flatMap((kind) => (kind === 'number' ? ['int', 'float'] : [kind]));
    case 'disjunction':
      return [...new Set(value.disjuncts.flatMap((disjunct) => kindsOf(disjunct.value)))];
    case 'function':
      return ['func'];
    default:
      return [value.kind];
  }
}

/** Structural comparison of an expected value (syntax) with the evaluated one. */
function compare(expected: Expr, actual: Inspected, path: Path, shared: Set<string>): Failure | undefined {
  switch (expected.type) {
    case 'paren':
      return compare(expected.expr, actual, path, shared);
    case 'struct':
      return compareStruct(expected, actual, path, shared);
    case 'list': {
      if (actual.kind !== 'list') return mismatch(expected, actual, path);
      const elements = expected.elements.filter((element): element is Expr => element.type !== 'comprehension');
      if (elements.length !== actual.elements.length)
        return fail('list length differs', `${show(path)}: want ${elements.length}, got ${actual.elements.length}`);
      // CUE's runner matches `[]` with `[...int]`: only an expected `...` asks for an open list.
      if (expected.rest && !actual.open) return fail('list not open', show(path));
      for (const [index, element] of elements.entries()) {
        const failure = compare(element, actual.elements[index], [...path, index], shared);
        if (failure) return failure;
      }
      return undefined;
    }
    case 'binary':
      if (expected.op === '|') return compareDisjunction(expected, actual, path, shared);
      break;
    case 'literal':
      return compareLiteral(expected, actual, path);
    case 'unary':
      if (
        (expected.op === '-' || expected.op === '+') &&
        expected.operand.type === 'literal' &&
        (expected.operand.kind === 'int' || expected.operand.kind === 'float')
      )
        return compareNumber(expected.operand.kind, `${expected.op}${String(expected.operand.value)}`, actual, path);
      break;
    case 'ident':
      if (expected.name === '_') return actual.kind === 'top' ? undefined : mismatch(expected, actual, path);
      break;
  }
  // Non-concrete values (`int`, `>=3`, `strings.MinRunes(3)`): compared as normalised CUE text.
  if (actual.kind === 'constraint' && normalise(format(expected)) === normalise(actual.text)) return undefined;
  if (actual.kind === 'function' && format(expected) === actual.name) return undefined;
  return mismatch(expected, actual, path);
}

function compareLiteral(expected: Extract<Expr, { type: 'literal' }>, actual: Inspected, path: Path): Failure | undefined {
  switch (expected.kind) {
    case 'bottom':
      return isError(actual) ? undefined : mismatch(expected, actual, path);
    case 'int':
    case 'float':
      return compareNumber(expected.kind, String(expected.value), actual, path);
    case 'null':
      return actual.kind === 'null' ? undefined : mismatch(expected, actual, path);
    default:
      return actual.kind === expected.kind && 'value' in actual && actual.value === expected.value ? undefined : mismatch(expected, actual, path);
  }
}

/** Numbers by value and kind: CUE tells `1` (int) from `1.0` (float). */
function compareNumber(kind: 'int' | 'float', text: string, actual: Inspected, path: Path): Failure | undefined {
  if (actual.kind !== 'int' && actual.kind !== 'float')
    return fail(
      `expected ${kind}, got ${actual.kind === 'bottom' ? `error (${actual.code})` : actual.kind}`,
      `${show(path)}: want ${text}, got ${describe(actual)}`,
    );
  if (actual.kind !== kind) return fail(`expected ${kind}, got ${actual.kind}`, `${show(path)}: want ${text}, got ${actual.text}`);
  const equal =
    kind === 'int'
      ? integerValue(text) === integerValue(actual.text)
      : Number(text.replace(/_/g, '')) === actual.value || Number(text.replace(/_/g, '')) === Number(actual.text);
  return equal ? undefined : fail('number differs', `${show(path)}: want ${text}, got ${actual.text}`);
}

const MULTIPLIERS: Record<string, bigint> = {
  K: 10n ** 3n,
  M: 10n ** 6n,
  G: 10n ** 9n,
  T: 10n ** 12n,
  P: 10n ** 15n,
  Ki: 2n ** 10n,
  Mi: 2n ** 20n,
  Gi: 2n ** 30n,
  Ti: 2n ** 40n,
  Pi: 2n ** 50n,
};

/** An integer literal's value: `1_000`, `0x1F`, `0o17`, `0b1`, `1.5Ki`; undefined when it is not one. */
function integerValue(text: string): bigint | undefined {
  const clean = text.replace(/_/g, '');
  const sign = clean.startsWith('-') ? -1n : 1n;
  const digits = clean.replace(/^[-+]/, '');
  const multiplied = /^(\d*)(?:\.(\d+))?([KMGTP]i?)$/.exec(digits);
  try {
    if (!multiplied) return sign * BigInt(digits);
    const fraction = multiplied[2] ?? '';
    return (sign * BigInt(`${multiplied[1] || '0'}${fraction}`) * MULTIPLIERS[multiplied[3]]) / 10n ** BigInt(fraction.length);
  } catch {
    return undefined;
  }
}

/** Disjuncts order-independently, with their default marks. */
function compareDisjunction(expected: Expr, actual: Inspected, path: Path, shared: Set<string>): Failure | undefined {
  if (actual.kind === 'constraint' && normalise(format(expected)) === normalise(actual.text)) return undefined;
  if (actual.kind !== 'disjunction') return mismatch(expected, actual, path);
  const terms = disjuncts(expected);
  if (terms.length !== actual.disjuncts.length) return fail('disjunction differs', `${show(path)}: want ${format(expected)}, got ${describe(actual)}`);
  const unmatched = [...actual.disjuncts];
  for (const term of terms) {
    const index = unmatched.findIndex((disjunct) => disjunct.isDefault === term.isDefault && !compare(term.value, disjunct.value, path, shared));
    if (index < 0) return fail('disjunction differs', `${show(path)}: want ${format(expected)}, got ${describe(actual)}`);
    unmatched.splice(index, 1);
  }
  return undefined;
}

function disjuncts(expr: Expr): { value: Expr; isDefault: boolean }[] {
  if (expr.type === 'binary' && expr.op === '|') return [...disjuncts(expr.left), ...disjuncts(expr.right)];
  if (expr.type === 'paren') return disjuncts(expr.expr);
  if (expr.type === 'unary' && expr.op === '*') return [{ value: expr.operand, isDefault: true }];
  return [{ value: expr, isDefault: false }];
}

/** Fields by label whatever their order, with their markers; `@test(ignore)`, `@test(err)` and `@test(shareID)` on expected fields. */
function compareStruct(expected: StructLit, actual: Inspected, path: Path, shared: Set<string>): Failure | undefined {
  const fields = expected.decls.filter((decl): decl is Field => decl.type === 'field');
  const embeds = expected.decls.filter((decl) => decl.type === 'embed');
  // `{5, #d: 1}`: a scalar embedded beside definitions or hidden fields; the plain tree keeps only the scalar.
  // `{_|_, a: 1}` asserts an erroneous struct, its fields being informational (CUE's runner: astcmp.go, hasEmbedBottom).
  if (embeds.some((embed) => embed.type === 'embed' && embed.expr.type === 'literal' && embed.expr.kind === 'bottom'))
    return isError(actual) ? undefined : mismatch(expected, actual, path);
  const declarative = fields.every((field) => field.label.kind === 'name' && /^[_#]/.test(field.label.name));
  if (embeds.length === 1 && (fields.length === 0 || (declarative && actual.kind !== 'struct'))) return compare(embeds[0].expr, actual, path, shared);
  if (actual.kind !== 'struct') return mismatch(expected, actual, path);
  // The evaluator shows a scalar or list beside definitions as `embedded` with those fields.
  if (embeds.length === 1 && declarative && actual.embedded && actual.embedded !== actual) {
    const failure = compare(embeds[0].expr, actual.embedded, path, shared);
    if (failure) return failure;
  }
  const listed = new Set<string>();
  for (const field of fields) {
    if (field.label.kind === 'pattern') {
      const label = normalise(format(field.label.expr));
      if (!actual.patterns.some((pattern) => normalise(pattern) === label))
        return fail('pattern missing', `${show(path)}: want [${label}], got ${actual.patterns.map((pattern) => `[${pattern}]`).join(' ') || 'none'}`);
      continue;
    }
    if (field.label.kind !== 'name') continue;
    // `_x$pkg` names a hidden field of package pkg; the evaluator labels it `_x`.
    const label = field.label.name.startsWith('_') ? field.label.name.replace(/\$\w+$/, '') : field.label.name;
    listed.add(label);
    const fieldPath = [...path, label];
    const attributes = field.attributes.filter((text) => text.startsWith('@test(')).map(parseTestAttribute);
    if (attributes.some((attribute) => attribute.directive === 'ignore')) continue;
    const found = actual.fields.find((candidate) => candidate.label === label);
    if (!found) return fail('field missing', `${show(fieldPath)} (has ${actual.fields.map((candidate) => candidate.label).join(', ') || 'no fields'})`);
    if (found.constraint !== (field.constraint ?? ''))
      return fail('field marker differs', `${show(fieldPath)}: want "${field.constraint ?? ''}", got "${found.constraint}"`);
    const err = attributes.find((attribute) => attribute.directive === 'err');
    if (err) {
      const at = err.options.get('at');
      const target = at === undefined ? found.value : navigate(found.value, parsePath(at));
      if ('category' in target) return target;
      const failure = checkError(err, target, at === undefined ? fieldPath : [...fieldPath, ...parsePath(at)]);
      if (failure) return failure;
      continue;
    }
    const share = attributes.find((attribute) => attribute.directive === 'shareID')?.value;
    if (share !== undefined && shared.has(share)) continue;
    if (share !== undefined) shared.add(share);
    const failure = compare(field.value, found.value, fieldPath, shared);
    if (failure) return failure;
  }
  const extra = actual.fields.filter((field) => !listed.has(field.label));
  if (extra.length > 0) return fail('unexpected field', `${show(path)}: ${extra.map((field) => field.label).join(', ')}`);
  if (expected.decls.some((decl) => decl.type === 'ellipsis') && !actual.open) return fail('struct not open', show(path));
  return undefined;
}

/** An error, or a struct that is one while keeping its fields (CUE's val.Err() is not nil). */
const isError = (value: Inspected): boolean => value.kind === 'bottom' || (value.kind === 'struct' && value.error !== undefined);

function mismatch(expected: Expr, actual: Inspected, path: Path): Failure {
  const want =
    expected.type === 'struct'
      ? 'struct'
      : expected.type === 'list'
        ? 'list'
        : expected.type === 'literal'
          ? expected.kind
          : expected.type === 'binary' && expected.op === '|'
            ? 'disjunction'
            : 'constraint';
  const got = actual.kind === 'bottom' ? `error (${actual.code})` : actual.kind;
  return fail(want === got ? `${want} differs` : `expected ${want}, got ${got}`, `${show(path)}: want ${format(expected)}, got ${describe(actual)}`);
}

/** A CUE path of `at=`: `a.b`, `a."x-y"`, `l[0]`. */
function parsePath(text: string): Path {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"|\[(\d+)\]|([^.[\]"]+)/g)].map((match) =>
    match[2] !== undefined ? Number(match[2]) : match[1] !== undefined ? unquote(`"${match[1]}"`) : match[3],
  );
}

function unquote(text: string): string {
  try {
    return JSON.parse(text) as string;
  } catch {
    return text;
  }
}

const show = (path: Path): string => path.map(String).join('.') || '(file)';

/** The evaluated value in short CUE-like text, for failure details. */
function describe(value: Inspected, depth = 0): string {
  switch (value.kind) {
    case 'bottom':
      return `_|_ (${value.code}: ${value.message})`;
    case 'top':
      return '_';
    case 'null':
      return 'null';
    case 'bool':
      return String(value.value);
    case 'int':
    case 'float':
      return value.text;
    case 'string':
      return JSON.stringify(value.value);
    case 'bytes':
      return `'${value.value}'`;
    case 'constraint':
      return value.text;
    case 'function':
      return value.name;
    case 'disjunction':
      return value.disjuncts.map((disjunct) => `${disjunct.isDefault ? '*' : ''}${describe(disjunct.value, depth + 1)}`).join(' | ');
    case 'list':
      return depth > 2 ? '[...]' : `[${[...value.elements.map((element) => describe(element, depth + 1)), ...(value.open ? ['...'] : [])].join(', ')}]`;
    case 'struct': {
      const decls = [
        ...(value.error ? [describe(value.error)] : []),
        ...value.fields.map((field) => `${field.label}${field.constraint}: ${describe(field.value, depth + 1)}`),
      ];
      return depth > 2 ? '{...}' : `{${decls.join(', ')}}`;
    }
  }
}

/** Expected syntax back as compact CUE text. */
function format(expr: Expr): string {
  switch (expr.type) {
    case 'literal':
      if (expr.kind === 'string') return JSON.stringify(expr.value);
      if (expr.kind === 'bytes') return `'${String(expr.value)}'`;
      return expr.kind === 'bottom' ? '_|_' : String(expr.value);
    case 'interpolation':
      return `"${expr.parts.map((part) => (typeof part === 'string' ? part : `\\(${format(part)})`)).join('')}"`;
    case 'ident':
      return expr.name;
    case 'selector':
      return `${format(expr.target)}.${expr.name}`;
    case 'index':
      return `${format(expr.target)}[${format(expr.index)}]`;
    case 'slice':
      return `${format(expr.target)}[${expr.low ? format(expr.low) : ''}:${expr.high ? format(expr.high) : ''}]`;
    case 'call':
      return `${format(expr.callee)}(${expr.args.map(format).join(', ')})`;
    case 'unary':
      return `${expr.op}${format(expr.operand)}`;
    case 'binary':
      // `&` and `|` commute: their terms sorted, so that `int & >0` matches `>0 & int`.
      if (expr.op === '&' || expr.op === '|') return terms(expr, expr.op).map(format).sort().join(` ${expr.op} `);
      return `${format(expr.left)} ${expr.op} ${format(expr.right)}`;
    case 'paren':
      return `(${format(expr.expr)})`;
    case 'alias':
      return `${expr.name}=${format(expr.expr)}`;
    case 'struct':
      return `{${expr.decls.map(formatDecl).join(', ')}}`;
    case 'list': {
      const elements = expr.elements.map((element) => (element.type === 'comprehension' ? 'for' : format(element)));
      if (expr.rest) elements.push(`...${expr.rest.type ? format(expr.rest.type) : ''}`);
      return `[${elements.join(', ')}]`;
    }
  }
}

function formatDecl(decl: Decl): string {
  if (decl.type === 'field' && decl.label.kind === 'name') return `${decl.label.name}${decl.constraint ?? ''}: ${format(decl.value)}`;
  if (decl.type === 'embed') return format(decl.expr);
  return decl.type === 'ellipsis' ? '...' : decl.type;
}

function terms(expr: Expr, op: string): Expr[] {
  if (expr.type === 'binary' && expr.op === op) return [...terms(expr.left, op), ...terms(expr.right, op)];
  if (expr.type === 'paren') return terms(expr.expr, op);
  return [expr];
}

/** CUE text in one canonical spelling: parsed and printed again when it parses, else without blanks. */
function normalise(text: string): string {
  try {
    return format(parseExpression(text));
  } catch {
    return text.replace(/\s+/g, '');
  }
}
