/**
 * CUE's regular expressions are Go's RE2. The common subset reads the same in JavaScript with the
 * `u` flag; the rest (inline flags other than a leading `(?i)`/`(?s)`/`(?m)`, POSIX classes, `\z`,
 * `\C`, possessive forms) is refused so that a policy using it runs on the WebAssembly path.
 */

export class UnsupportedRegexp extends Error {}

/** A regular expression RE2 refuses too (an unmatched parenthesis): an error of the value, as CUE reports it. */
export class InvalidRegexp extends UnsupportedRegexp {}

/** JavaScript's complaints that are RE2's as well, in RE2's words. */
const INVALID: ReadonlyArray<[RegExp, string]> = [
  [/Unmatched '\)'/, 'unexpected )'],
  [/Unterminated group/, 'missing closing )'],
  [/Nothing to repeat/, 'missing argument to repetition operator'],
  [/Unterminated character class/, 'missing closing ]'],
];

const cache = new Map<string, RegExp>();

export function compileRegexp(source: string): RegExp {
  const known = cache.get(source);
  if (known) return known;
  let pattern = source;
  let flags = 'u';
  const inline = /^\(\?([ism]+)\)/.exec(pattern);
  if (inline) {
    flags += inline[1];
    pattern = pattern.slice(inline[0].length);
  }
  if (/\(\?[a-zA-Z-]|\[\[:|\\[zCQEpP]|\\A/.test(pattern.replace(/\(\?P?</g, '(?<'))) {
    if (!/\\[pP]\{[A-Za-z_]+\}/.test(pattern) || /\(\?[a-zA-Z-]|\[\[:|\\[zCQE]|\\A/.test(pattern))
      throw new UnsupportedRegexp(`the regular expression ${JSON.stringify(source)} uses RE2 syntax the native evaluator does not read`);
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern.replace(/\(\?P</g, '(?<'), flags);
  } catch (error) {
    const invalid = INVALID.find(([complaint]) => complaint.test((error as Error).message));
    if (invalid) throw new InvalidRegexp(`invalid regexp: error parsing regexp: ${invalid[1]}: \`${source}\``);
    throw new UnsupportedRegexp(`the regular expression ${JSON.stringify(source)} does not compile here: ${(error as Error).message}`);
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(source, compiled);
  return compiled;
}
