/**
 * A policy (or metric) script as the batch sees it: where its declarations start, so that they can
 * be wrapped in a struct of their own while its imports stay at the top of its file, and whether
 * that wrapping is safe next to other policies.
 *
 * The wrapped file keeps every line of the script on the same line plus one (after a `package`
 * line of ours), so positions in CUE's messages map back to the author's lines.
 */
export interface PolicySource {
  readonly script: string;
  /** Offset of the first declaration after the package clause and imports. */
  readonly bodyStart: number;
  /** The author's `package` clause, blanked out in the wrapped file (all files of a run share ours). */
  readonly packageClause?: { readonly start: number; readonly end: number };
  /**
   * Brackets balance outside strings and comments, so the script cannot close the struct it is
   * wrapped in and reach the fields of other policies in the same run. When false (unbalanced, or
   * syntax this scanner does not know) the script runs on its own and CUE reports what is wrong.
   */
  readonly selfContained: boolean;
}

const IDENTIFIER = /[#_$A-Za-z][#\w$]*/y;
const RAW_QUOTE = /(#*)("""|'''|"|')/y;
const CLOSERS: Record<string, string> = { '{': '}', '[': ']', '(': ')' };

function skipSpaceAndComments(text: string, at: number): number {
  let i = at;
  for (;;) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (!text.startsWith('//', i)) return i;
    while (i < text.length && text[i] !== '\n') i++;
  }
}

function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/**
 * Scans a string literal starting at `at` (on its optional `#`s or its quote) and returns the
 * offset after it, or -1 when it does not end. Interpolations `\(...)` are scanned as expressions.
 */
function scanString(text: string, at: number): number {
  const opening = matchAt(RAW_QUOTE, text, at);
  if (!opening) return -1;
  const hashes = opening[1];
  const quote = opening[2];
  const multiline = quote.length === 3;
  const closing = quote + hashes;
  const escapeMark = `\\${hashes}`;
  let i = at + opening[0].length;
  while (i < text.length) {
    if (text.startsWith(closing, i)) return i + closing.length;
    if (!multiline && text[i] === '\n') return -1;
    if (text.startsWith(escapeMark, i)) {
      i += escapeMark.length;
      if (text[i] === '(') {
        i = scanBalanced(text, i + 1, ')');
        if (i < 0) return -1;
      } else {
        i++;
      }
      continue;
    }
    i++;
  }
  return -1;
}

/**
 * Scans tokens from `at` until `closer` closes at depth zero (or to the end of the text when
 * there is none) and returns the offset after it, or -1 when the brackets do not balance.
 */
function scanBalanced(text: string, at: number, closer?: string): number {
  const expected: string[] = closer ? [closer] : [];
  let i = at;
  while (i < text.length) {
    const c = text[i];
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '"' || c === "'" || (c === '#' && matchAt(RAW_QUOTE, text, i))) {
      i = scanString(text, i);
      if (i < 0) return -1;
    } else if (CLOSERS[c]) {
      expected.push(CLOSERS[c]);
      i++;
    } else if (c === '}' || c === ']' || c === ')') {
      if (expected.pop() !== c) return -1;
      i++;
      if (closer && expected.length === 0) return i;
    } else {
      i++;
    }
  }
  return expected.length === 0 ? i : -1;
}

/** An import declaration at `at` (`import "p"`, `import x "p"` or `import ( ... )`): the offset after it, or -1. */
function scanImport(text: string, at: number): number {
  let i = skipSpaceAndComments(text, at + 'import'.length);
  if (text[i] === '(') return scanBalanced(text, i + 1, ')');
  const alias = matchAt(IDENTIFIER, text, i);
  if (alias) i = skipSpaceAndComments(text, i + alias[0].length);
  return text[i] === '"' ? scanString(text, i) : -1;
}

const keywordAt = (text: string, at: number, keyword: string): boolean => matchAt(IDENTIFIER, text, at)?.[0] === keyword;

export function policySource(script: string): PolicySource {
  let i = skipSpaceAndComments(script, 0);
  let packageClause: PolicySource['packageClause'];
  if (keywordAt(script, i, 'package')) {
    const nameAt = skipSpaceAndComments(script, i + 'package'.length);
    const name = matchAt(IDENTIFIER, script, nameAt);
    // `package: ...` is a field named package, not a clause.
    if (name && nameAt > i + 'package'.length) {
      packageClause = { start: i, end: nameAt + name[0].length };
      i = skipSpaceAndComments(script, packageClause.end);
    }
  }
  while (keywordAt(script, i, 'import')) {
    const end = scanImport(script, i);
    if (end < 0) break;
    i = skipSpaceAndComments(script, end);
  }
  return { script, bodyStart: i, packageClause, selfContained: scanBalanced(script, i) >= 0 };
}

/** Line and column (1-based) of an offset. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The file a policy runs in: its imports, then its declarations as the struct `field`. */
export function wrappedPolicy(source: PolicySource, packageName: string, field: string): string {
  const { script, bodyStart, packageClause } = source;
  let preamble = script.slice(0, bodyStart);
  if (packageClause) {
    const clause = preamble.slice(packageClause.start, packageClause.end).replace(/[^\n]/g, ' ');
    preamble = preamble.slice(0, packageClause.start) + clause + preamble.slice(packageClause.end);
  }
  return `package ${packageName}\n${preamble}${field}: {${script.slice(bodyStart)}\n}\n`;
}

/**
 * Maps a position in the wrapped file back to the author's script. Positions on our own lines
 * (the package line, the closing brace) are clamped to the script's first or last line.
 */
export function scriptPosition(source: PolicySource, field: string, line: number, column: number): { line: number; column: number } {
  const lines = source.script.split('\n').length;
  const scriptLine = line - 1;
  if (scriptLine < 1) return { line: 1, column: 1 };
  if (scriptLine > lines) return { line: lines, column: source.script.split('\n')[lines - 1].length + 1 };
  const body = positionOf(source.script, source.bodyStart);
  const inserted = `${field}: {`.length;
  if (scriptLine === body.line && column >= body.column) return { line: scriptLine, column: Math.max(body.column, column - inserted) };
  return { line: scriptLine, column };
}
