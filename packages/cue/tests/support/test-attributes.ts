import type { Decl, Expr, File } from '@cgp/cue/syntax';

/**
 * The `@test(...)` attributes of CUE's conformance files (../shared/cue-conformance/inline-test-attributes.md):
 * read from the parser's raw attribute text and placed at the path of the value they assert.
 */

/** One `@test(directive[:version][=value], positional..., key=value...)`. */
export interface TestAttribute {
  readonly directive: string;
  readonly version?: string;
  /** The value of a `directive=value` first argument (`kind=int`, `closed=false`). */
  readonly value?: string;
  /** Arguments after the directive without a key, as written (`eq`'s expected value, the `any` flag). */
  readonly positional: readonly string[];
  readonly options: ReadonlyMap<string, string>;
}

export type Path = readonly (string | number)[];

/** One checked `@test` attribute, at the path of the value it asserts (a field's, or the struct's holding a decl attribute). */
export interface Assertion {
  readonly path: Path;
  readonly attribute: TestAttribute;
  /**
   * For an assertion flagged `incorrect` (CUE's known-wrong answer), its `:todo` counterparts on the same
   * field (the answer CUE's authors expect once the bug is fixed): an evaluator without the bug meets those instead.
   */
  readonly correct?: readonly TestAttribute[];
  readonly line: number;
}

/** Our evaluator stands for CUE's v3: `eq:v3` replaces `eq` for it, other versions (`todo`, `v2`) are not ours. */
const VERSION = 'v3';

/** Directives the runner checks; the others (share, permute, allows, debugCheck, ...) assert Go internals or are not counted. */
const CHECKED = new Set(['eq', 'err', 'kind', 'closed']);

/** The `@test` assertions of a parsed file that the runner checks (`@test(skip)` drops those beside it). */
export function assertionsOf(file: File): Assertion[] {
  const found: Assertion[] = [];
  collectDecls(file.decls, [], found);
  return found;
}

function collectDecls(decls: readonly Decl[], path: Path, found: Assertion[]): void {
  const declAttributes = decls.filter((decl) => decl.type === 'attribute');
  if (declAttributes.length > 0)
    place(
      declAttributes.map((decl) => decl.text),
      path,
      declAttributes[0].at.line,
      found,
    );
  for (const decl of decls) {
    if (decl.type === 'embed') collectExpr(decl.expr, path, found);
    // Fields under computed or pattern labels, in comprehensions or lets, have no concrete path to assert at.
    if (decl.type !== 'field' || decl.label.kind !== 'name') continue;
    const fieldPath = [...path, decl.label.name];
    place(decl.attributes, fieldPath, decl.at.line, found);
    collectExpr(decl.value, fieldPath, found);
  }
}

function collectExpr(expr: Expr, path: Path, found: Assertion[]): void {
  if (expr.type === 'struct') collectDecls(expr.decls, path, found);
  else if (expr.type === 'paren' || expr.type === 'alias') collectExpr(expr.expr, path, found);
  else if (expr.type === 'binary' && expr.op === '&') {
    collectExpr(expr.left, path, found);
    collectExpr(expr.right, path, found);
  } else if (expr.type === 'list') expr.elements.forEach((element, index) => element.type !== 'comprehension' && collectExpr(element, [...path, index], found));
}

function place(texts: readonly string[], path: Path, line: number, found: Assertion[]): void {
  const attributes = texts.filter((text) => text.startsWith('@test(')).map(parseTestAttribute);
  const applicable = attributes.filter((attribute) => attribute.version === undefined || attribute.version === VERSION);
  if (applicable.some((attribute) => attribute.directive === 'skip')) return;
  const versioned = new Set(applicable.filter((attribute) => attribute.version).map((attribute) => attribute.directive));
  const todos = attributes.filter((attribute) => attribute.version === 'todo' && CHECKED.has(attribute.directive));
  for (const attribute of applicable) {
    if (!CHECKED.has(attribute.directive) || (!attribute.version && versioned.has(attribute.directive))) continue;
    const correct = attribute.positional.includes('incorrect') && todos.length > 0 ? { correct: todos } : {};
    found.push({ path, attribute, line, ...correct });
  }
}

/** Reads `@test(...)`: the first argument is the directive, then positional arguments and `key=value` options. */
export function parseTestAttribute(text: string): TestAttribute {
  const [first = '', ...rest] = splitArguments(text.slice('@test('.length, -1));
  const head = keyed(first);
  const [directive, version] = (head ? head.key : first).split(':');
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (const argument of rest) {
    const option = keyed(argument);
    if (option) options.set(option.key, option.value);
    else positional.push(argument);
  }
  return { directive, version, value: head?.value, positional, options };
}

/** `key=value`, but not an expected value such as `=~"x"` or `a == b`. */
function keyed(argument: string): { key: string; value: string } | undefined {
  const match = /^([A-Za-z_][\w:]*)\s*=(?![=~])\s*([\s\S]*)$/.exec(argument);
  return match ? { key: match[1], value: match[2] } : undefined;
}

/** Splits at the commas outside brackets, strings (`"..."`, `'...'`, `"""..."""`, `#"..."#`) and `//` comments, which are dropped. */
function splitArguments(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '"' || ch === "'" || (ch === '#' && /^#+["']/.test(body.slice(i)))) {
      const end = endOfString(body, i);
      current += body.slice(i, end + 1);
      i = end;
      continue;
    }
    if (ch === '/' && body[i + 1] === '/') {
      i = body.indexOf('\n', i) < 0 ? body.length : body.indexOf('\n', i) - 1;
      continue;
    }
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  parts.push(current.trim());
  return parts.filter((part) => part !== '');
}

/** The index of the last character of the string literal starting at `start`. */
function endOfString(body: string, start: number): number {
  let i = start;
  while (body[i] === '#') i++;
  const hashes = body.slice(start, i);
  const quote = body.slice(i, i + 3) === body[i].repeat(3) ? body[i].repeat(3) : body[i];
  i += quote.length;
  const close = quote + hashes;
  while (i < body.length && !body.startsWith(close, i)) i += body[i] === '\\' && body.startsWith(hashes, i + 1) ? 2 + hashes.length : 1;
  return i + close.length - 1;
}
