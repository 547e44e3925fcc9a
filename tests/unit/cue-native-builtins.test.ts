/**
 * The native evaluator's builtins follow Go's standard library, as CUE's do (CUE's builtins are Go's
 * strings, strconv, math, time and unicode): each case here is one where JavaScript's own functions
 * answer differently, with CUE's answer. And no builtin may hang the process or exhaust its memory:
 * each one's work counts against cue-config.max-steps and what it makes is bounded (MAX_OUTPUT).
 */
import { compileNative, MAX_OUTPUT } from '@cgp/cue';
import { describe, expect, it } from 'vitest';

import { compiled, judgeNative, PASS, vet } from '../support/native-cue';

const IMPORTS = ['strings', 'strconv', 'math', 'list', 'time', 'regexp'];
/** A script of `x: <expression>` with the packages it names imported. */
const script = (expression: string, rest = '') =>
  `${IMPORTS.filter((name) => expression.includes(`${name}.`) || rest.includes(`${name}.`))
    .map((name) => `import "${name}"\n`)
    .join('')}x: ${expression}\n${rest}`;

/** The value of `x: <expression>` as the native evaluator finds it: `x` given in the descriptor must comply. */
const holds = (expression: string, value: unknown) => vet(script(expression), { x: value });

/** The error of `x: <expression>`: a constant one refuses the script when it is saved. */
function errorOf(expression: string): string {
  const result = compileNative(script(expression));
  if (!result.ok && result.unsupported === undefined) return result.message;
  const verdict = vet(script(expression), {});
  if (verdict.satisfiesPolicy) throw new Error(`${expression} did not fail`);
  return verdict.errors[0];
}

describe('builtins follow Go', () => {
  it('strings.Replace with an empty old string inserts before each rune and at the end, as Go does (it never ended)', () => {
    expect(holds('strings.Replace("abc", "", "-", -1)', '-a-b-c-')).toEqual(PASS);
    expect(holds('strings.Replace("abc", "", "-", 2)', '-a-bc')).toEqual(PASS);
    expect(holds('strings.Replace("", "", "-", -1)', '-')).toEqual(PASS);
    expect(holds('strings.Replace("héllo", "", "|", -1)', '|h|é|l|l|o|')).toEqual(PASS);
    expect(holds('strings.Replace("a.b.c.d", ".", "/", 2)', 'a/b/c.d')).toEqual(PASS);
    expect(holds('strings.Replace("aaaa", "aa", "b", -1)', 'bb')).toEqual(PASS);
    expect(holds('strings.Replace("abc", "x", "y", -1)', 'abc')).toEqual(PASS);
    expect(holds('strings.Replace("abc", "b", "y", 0)', 'abc')).toEqual(PASS);
    // The descriptor's own string, replaced without end, was the process's end.
    expect(vet('import "strings"\nname: string\nx: strings.Replace(name, "", "-", -1)\n', { name: 'ab', x: '-a-b-' })).toEqual(PASS);
  });
});

describe('builtins follow Go: case mapping and white space', () => {
  it('maps case rune by rune with simple mappings (unicode.ToUpper, ToLower), as Go does: `ß` stays `ß`', () => {
    expect(holds('strings.ToUpper("straße")', 'STRAßE')).toEqual(PASS);
    expect(holds('strings.ToUpper("ŉ ǰ ﬀ ΐ")', 'ŉ ǰ ﬀ ΐ')).toEqual(PASS);
    expect(holds('strings.ToUpper("ᾳ ᾀ ᾈ")', 'ᾼ ᾈ ᾈ')).toEqual(PASS);
    expect(holds('strings.ToUpper("ǆ აბ")', 'Ǆ ᲐᲑ')).toEqual(PASS);
    expect(holds('strings.ToLower("ΑΣ İ ẞ")', 'ασ i ß')).toEqual(PASS);
    expect(vet(script('strings.ToUpper("ß")'), { x: 'SS' })).toMatchObject({ satisfiesPolicy: false });
    // A policy comparing a descriptor's field with its upper case: natively `Straße` was `STRASSE`.
    const upper = 'import "strings"\nname: string\nupper: strings.ToUpper(name)\n';
    expect(vet(upper, { name: 'Straße', upper: 'STRAßE' })).toEqual(PASS);
    expect(vet(upper, { name: 'Straße', upper: 'STRASSE' })).toMatchObject({ satisfiesPolicy: false });
  });

  it("ToTitle and ToCamel map the rune starting each word, after Go's white space, as CUE's do (ToTitle upper-cased everything)", () => {
    expect(holds('strings.ToTitle("hello world foo_bar x-y ǆemal")', 'Hello World Foo_bar X-y ǅemal')).toEqual(PASS);
    expect(holds('strings.ToTitle("a\\u00a0b\\u2000c\\td.e,f აბ")', 'A\u00a0B\u2000C\tD.e,f აბ')).toEqual(PASS);
    expect(holds('strings.ToCamel("Hello World Foo_Bar X-Y ÀB")', 'hello world foo_Bar x-Y àB')).toEqual(PASS);
    expect(holds('strings.ToCamel("HELLO\\u00a0World\\u2000Xy")', 'hELLO\u00a0world\u2000xy')).toEqual(PASS);
  });

  it("Fields and TrimSpace use Go's white space (unicode.IsSpace): U+0085 is, U+FEFF is not", () => {
    // (Compared in CUE: a descriptor holding U+FEFF is not read at all.)
    expect(holds('strings.Fields("a\\u0085b\\ufeffc\\u3000d") == ["a", "b\\ufeffc", "d"]', true)).toEqual(PASS);
    expect(holds('strings.Fields(" \\t a  b\\n")', ['a', 'b'])).toEqual(PASS);
    expect(holds('strings.TrimSpace("\\u0085\\u00a0a b\\u2029")', 'a b')).toEqual(PASS);
    expect(holds('strings.TrimSpace("\\ufeffa\\ufeff") == "\\ufeffa\\ufeff"', true)).toEqual(PASS);
    // A name with a byte order mark is not even read: CUE refuses the descriptor (cue-native-differential.test.ts).
    const trimmed = 'import "strings"\nname: string\nname: strings.TrimSpace(name)\n';
    expect(vet(trimmed, { name: '\ufeffdp' })).toMatchObject({ satisfiesPolicy: false, isError: true });
    expect(vet(trimmed, { name: 'dp\u0085' })).toMatchObject({ satisfiesPolicy: false });
  });
});

describe('builtins follow Go: splitting and ranges', () => {
  it('strings.SplitN with an empty separator splits runes, not UTF-16 units', () => {
    expect(holds('strings.SplitN("a😀b", "", 2)', ['a', '😀b'])).toEqual(PASS);
    expect(holds('strings.SplitN("a😀b", "", -1)', ['a', '😀', 'b'])).toEqual(PASS);
    expect(holds('strings.SplitN("a,b,c", ",", 2)', ['a', 'b,c'])).toEqual(PASS);
    expect(holds('strings.SplitN("a,b,c", ",", 0)', [])).toEqual(PASS);
  });

  it('list.Take, list.Drop and list.Slice refuse a negative index as CUE does (natively it was taken as 0)', () => {
    expect(errorOf('list.Take([1, 2], -1)')).toMatch(/^x: error in call to list.Take: negative index/);
    expect(errorOf('list.Drop([1, 2], -1)')).toMatch(/^x: error in call to list.Drop: negative index/);
    expect(errorOf('list.Slice([1, 2, 3], -1, 1)')).toMatch(/^x: error in call to list.Slice: negative index/);
    expect(errorOf('list.Slice([1, 2, 3], 2, 1)')).toMatch(/^x: error in call to list.Slice: invalid index: 2 > 1/);
    expect(errorOf('list.Slice([1, 2, 3], 1, 5)')).toMatch(/^x: error in call to list.Slice: slice bounds out of range/);
    expect(holds('list.Take([1, 2], 5)', [1, 2])).toEqual(PASS);
    expect(holds('list.Drop([1, 2], 5)', [])).toEqual(PASS);
  });

  it('list.Range adds its step in decimal and refuses a range that never reaches its end, as CUE does', () => {
    expect(holds('list.Range(0, 0.5, 0.1)', [0, 0.1, 0.2, 0.3, 0.4])).toEqual(PASS);
    expect(errorOf('list.Range(5, 1, 1)')).toMatch(/^x: error in call to list.Range: end must be greater than start when step is positive/);
    expect(errorOf('list.Range(1, 5, -1)')).toMatch(/^x: error in call to list.Range: end must be less than start when step is negative/);
  });
});

describe('builtins follow Go: strings are ordered by their UTF-8 bytes', () => {
  // U+FF61 is EF BD A1 in UTF-8, U+1F600 F0 9F 98 80: U+FF61 first. In UTF-16 units U+1F600 (D83D DE00) came first.
  it('compares with <, <=, >, >= by code point', () => {
    expect(holds('"\\uFF61" < "\\U0001F600"', true)).toEqual(PASS);
    expect(holds('"\\U0001F600" >= "\\uFF61"', true)).toEqual(PASS);
    expect(holds('"a" < "b"', true)).toEqual(PASS);
  });

  it('checks bounds by code point: a descriptor past one fails', () => {
    const below = 'name: string & <"\\uFF61"\n';
    expect(vet(below, { name: '😀' })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^name: invalid value "😀" \(out of bound <"｡"\)/)],
    });
    expect(vet(below, { name: 'z' })).toEqual(PASS);
    expect(vet('name: string & >"\\uFF61"\n', { name: '😀' })).toEqual(PASS);
    // A range between them is not empty; the other way round it is.
    expect(vet('name: >"\\uFF61" & <"\\U0001F600"\n', { name: '\uFFFD' })).toEqual(PASS);
    expect(compileNative('name: >"\\U0001F600" & <"\\uFF61"\n')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^name: incompatible string bounds/),
    });
  });

  it('sorts and checks order by code point: list.SortStrings, list.IsSortedStrings, list.Sort', () => {
    expect(holds('list.SortStrings(["\\U0001F600", "\\uFF61", "a"])', ['a', '｡', '😀'])).toEqual(PASS);
    expect(holds('list.IsSortedStrings(["\\uFF61", "\\U0001F600"])', true)).toEqual(PASS);
    expect(holds('list.IsSortedStrings(["\\U0001F600", "\\uFF61"])', false)).toEqual(PASS);
    expect(holds('list.Sort(["\\U0001F600", "\\uFF61"], {x: _, y: _, less: x < y})', ['｡', '😀'])).toEqual(PASS);
  });

  it('has the comparers of pkg/list/sort.cue: list.Ascending, list.Descending, list.Comparer', () => {
    expect(holds('list.Sort(["b", "\\U0001F600", "\\uFF61", "a"], list.Ascending)', ['a', 'b', '｡', '😀'])).toEqual(PASS);
    expect(holds('list.Sort([2, 10, 1.5], list.Descending)', [10, 2, 1.5])).toEqual(PASS);
    expect(holds('list.Sort([3, 1, 2], list.Comparer & {x: int, y: int, less: x < y})', [1, 2, 3])).toEqual(PASS);
    // A descriptor's list, sorted in every evaluation with the same struct.
    const sorted = compiled('import "list"\nnames: [...string]\nsorted: list.Sort(names, list.Ascending)\n');
    for (const names of [
      ['b', 'a'],
      ['d', 'c', 'e'],
    ])
      expect(judgeNative(sorted, { names, sorted: [...names].sort() }, { requireConcrete: true, metric: false })).toEqual(PASS);
    // Open structs as CUE declares them; T is number | string.
    expect(vet(script('list.Ascending & {x: 1, y: 2}'), { x: { x: 1, y: 2, less: true, extra: 'a' } }, false)).toEqual(PASS);
    expect(vet(script('list.Descending & {x: 1, y: 2}'), { x: { less: true } }, false)).toMatchObject({ satisfiesPolicy: false });
    expect(vet(script('list.Sort([{a: 1}, 2], list.Ascending)'), {})).toMatchObject({ satisfiesPolicy: false });
  });
});

describe('builtins follow Go: the predeclared number types', () => {
  it('float32 and float64 are bounded as CUE bounds them (float32 had no bounds)', () => {
    expect(vet('x: float32\n', { x: 4e38 })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^x: invalid value 4E\+38 \(out of bound <=340282346638528859811704183484516925440\)/)],
    });
    expect(compileNative('x: float32 & -4e38\n')).toMatchObject({
      ok: false,
      message: 'x: invalid value -4E+38 (out of bound >=-340282346638528859811704183484516925440)',
    });
    expect(vet('x: float32\n', { x: 3.4e38 })).toEqual(PASS);
    expect(vet('x: float32\n', { x: 5 })).toEqual(PASS);
    expect(vet('x: float32\n', {})).toMatchObject({
      errors: [expect.stringMatching(/^x: incomplete value >=-340282346638528859811704183484516925440 & <=340282346638528859811704183484516925440$/)],
    });
    expect(vet('x: float64\n', { x: 1e308 })).toEqual(PASS);
    expect(vet('x: float64\n', {})).toMatchObject({
      errors: [
        expect.stringMatching(/incomplete value >=-1.797693134862315708145274237317043567981E\+308 & <=1.797693134862315708145274237317043567981E\+308$/),
      ],
    });
  });

  it('refuses a number past a limit that a double rounds onto it (2^63 is not an int64), and names the limit as CUE does', () => {
    expect(vet('x: int64\n', { x: 9223372036854775808 })).toMatchObject({
      satisfiesPolicy: false,
      // The descriptor's 2^63 as its JSON writes it, which is what CUE reads.
      errors: [expect.stringMatching(/^x: invalid value 9223372036854776000 \(out of bound <=9223372036854775807\)/)],
    });
    // -2^63 is written -9223372036854776000 in the descriptor's JSON, past the limit, as CUE reads it.
    expect(vet('x: int64\n', { x: -9223372036854775808 })).toMatchObject({ satisfiesPolicy: false });
    expect(vet('x: int64\n', { x: -9223372036854774784 })).toEqual(PASS);
    expect(vet('x: int64\n', {})).toMatchObject({ errors: [expect.stringMatching(/incomplete value >=-9223372036854775808 & <=9223372036854775807 & int$/)] });
    expect(vet('x: uint64\n', { x: 18446744073709551616 })).toMatchObject({ satisfiesPolicy: false });
    // The float32 limit is a double; its shortest text stands for a decimal just past CUE's limit.
    expect(vet('x: float32\n', { x: 3.4028234663852886e38 })).toMatchObject({ satisfiesPolicy: false });
  });

  it('has int128 and uint128, and no byte (CUE leaves it out: too like bytes)', () => {
    expect(vet('x: int128 & uint128\n', { x: 5 })).toEqual(PASS);
    expect(vet('x: uint128\n', { x: -1 })).toMatchObject({ satisfiesPolicy: false });
    expect(compileNative('x: byte & 5\n')).toEqual({ ok: false, message: 'x: reference "byte" not found', line: 1, column: 4 });
  });
});

describe('builtins follow Go: math.MultipleOf is exact in decimal', () => {
  // CUE's math.MultipleOf divides in apd decimals (34 digits) and checks the quotient has no fraction.
  it('answers as CUE does where a tolerance of 1e-9 did not', () => {
    for (const [x, y, multiple] of [
      ['0.3', '0.1', true],
      ['0.7', '0.1', true],
      ['1e-10', '3', false],
      ['1e-12', '1', false],
      ['10', '3', false],
      ['-9', '3', true],
      ['99*99', '99', true],
      ['100010', '10', true],
      ['22', '2', true],
      ['5555555', '2', false],
      ['100.01', '4', false],
      ['4.2', '1.4', true],
      ['0', '7', true],
      // The quotient rounded to CUE's 34 digits is whole.
      ['1e40', '3', true],
    ] as const)
      expect(holds(`math.MultipleOf(${x}, ${y})`, multiple), `${x}, ${y}`).toEqual(PASS);
  });

  it('as a validator, fails a descriptor that is no multiple, and words a zero divisor as CUE does', () => {
    const validator = 'import "math"\nx: math.MultipleOf(0.5)\n';
    expect(vet(validator, { x: 2.5 })).toEqual(PASS);
    expect(vet(validator, { x: 2.5000000001 })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^x: invalid value 2.5000000001 \(does not satisfy math.MultipleOf\(0.5\)\)/)],
    });
    expect(vet('import "math"\nx: math.MultipleOf(0)\n', { x: 7 })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^x: invalid value 7 \(does not satisfy math.MultipleOf\(0\)\): error in call to math.MultipleOf: division by zero/)],
    });
    expect(errorOf('math.MultipleOf(0, 0)')).toMatch(/^x: error in call to math.MultipleOf: division undefined/);
  });
});

describe('builtins follow Go: math/bits works on integers of any size, as math/big does', () => {
  const bits = (expression: string, rest = '') => `import "math/bits"\nx: ${expression}\n${rest}`;
  const bitsHold = (expression: string, value: unknown) => vet(bits(expression), { x: value });
  const bitsError = (expression: string) => {
    const result = compileNative(bits(expression));
    return !result.ok && result.unsupported === undefined ? result.message : undefined;
  };

  it("shifts, reads and sets bits; a negative integer is in two's complement (the answers are CUE v0.4's)", () => {
    for (const [expression, value] of [
      ['bits.Lsh(-3, 2)', -12],
      ['bits.Rsh(-7, 1)', -4],
      ['bits.Rsh(-1, 1000)', -1],
      ['bits.Rsh(1000, 1000)', 0],
      ['bits.At(-1, 100)', 1],
      ['bits.At(-5, 2)', 0],
      ['bits.Set(-5, 2, 1)', -1],
      ['bits.Set(-1, 1000, 1)', -1],
      ['bits.Set(0, 3, 0)', 0],
      ['bits.And(-6, 7)', 2],
      ['bits.Or(-8, 3)', -5],
      ['bits.Xor(-1, 5)', -6],
      ['bits.Clear(15, 5)', 10],
      ['bits.Clear(-1, 5)', -6],
      // OnesCount and Len count the bits of the absolute value.
      ['bits.OnesCount(-1)', 1],
      ['bits.OnesCount(0)', 0],
      ['bits.Len(-8)', 4],
      ['bits.Len(0)', 0],
    ] as const)
      expect(bitsHold(expression, value), expression).toEqual(PASS);
    expect(vet(bits('bits.And(n, 12)', 'n: int\n'), { n: 10, x: 8 })).toEqual(PASS);
    expect(vet(bits('bits.And(n, 12)', 'n: int\n'), { n: 10, x: 9 })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^x: conflicting values 8 and 9/)],
    });
  });

  it('is exact past 2^53: a result keeps its digits, shown and passed to another call', () => {
    expect(bitsHold('"\\(bits.Lsh(1, 64))"', '18446744073709551616')).toEqual(PASS);
    expect(bitsHold('"\\(bits.Set(0, 70, 1))"', '1180591620717411303424')).toEqual(PASS);
    expect(bitsHold('"\\(bits.Set(-1, 70, 0))"', '-1180591620717411303425')).toEqual(PASS);
    expect(bitsHold('"\\(bits.Or(bits.Lsh(1, 64), 1))"', '18446744073709551617')).toEqual(PASS);
    expect(bitsHold('bits.Rsh(bits.Lsh(3, 100), 99)', 6)).toEqual(PASS);
    expect(bitsHold('bits.At(bits.Lsh(1, 80), 80)', 1)).toEqual(PASS);
    expect(bitsHold('bits.OnesCount(bits.Lsh(255, 70))', 8)).toEqual(PASS);
    expect(bitsHold('bits.Len(bits.Lsh(1, 64))', 65)).toEqual(PASS);
  });

  it('refuses what CUE refuses: a float, a negative shift or index, a bit that is not 0 or 1', () => {
    expect(bitsError('bits.Lsh(1.0, 2)')).toMatch(/^x: cannot use 1.0 \(type float\) as int in argument 1 to bits.Lsh/);
    expect(bitsError('bits.Lsh("a", 2)')).toMatch(/^x: cannot use "a" \(type string\) as int in argument 1 to bits.Lsh/);
    expect(bitsError('bits.Lsh(1, -1)')).toMatch(/^x: error in call to bits.Lsh: cannot use -1 \(type int\) as uint64 in argument 1/);
    expect(bitsError('bits.Lsh(1, 18446744073709551616)')).toMatch(/^x: error in call to bits.Lsh: int 18446744073709551616 overflows uint64/);
    expect(bitsError('bits.Set(5, -1, 1)')).toMatch(/^x: error in call to bits.Set: negative bit index/);
    expect(bitsError('bits.Set(5, 1, 2)')).toMatch(/^x: error in call to bits.Set: set bit is not 0 or 1/);
    expect(bitsError('bits.At(1, 2147483648)')).toMatch(/^x: error in call to bits.At: bit index too large/);
  });

  it('refuses a result past the output bound before building it (Go would run out of memory)', () => {
    const shifted = judgeNative(compiled(bits('bits.Lsh(1, n)', 'n: int\n')), { n: 1_000_000_000 }, { requireConcrete: true, metric: false });
    expect(shifted).toEqual({
      satisfiesPolicy: false,
      isError: true,
      errors: [`bits.Lsh would make 301029996 characters, more than the native evaluator's limit of ${MAX_OUTPUT}`],
    });
    const set = judgeNative(compiled(bits('bits.Set(0, n, 1)', 'n: int\n')), { n: 1_000_000_000 }, { requireConcrete: true, metric: false });
    expect(set).toMatchObject({ satisfiesPolicy: false, isError: true, errors: [expect.stringMatching(/^bits.Set would make \d+ characters/)] });
  });
});

describe('builtins follow Go: strconv', () => {
  const parseError = (func: string, text: string, reason: string) =>
    new RegExp(`^x: error in call to strconv\\.${func}: strconv\\.${func}: parsing ${JSON.stringify(text).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${reason}`);

  it('ParseInt, ParseUint and Atoi read the whole text in its base, as math/big does, and check bitSize', () => {
    expect(errorOf('strconv.ParseInt("12abc", 10, 64)')).toMatch(parseError('ParseInt', '12abc', 'invalid syntax'));
    expect(errorOf('strconv.ParseInt("300", 10, 8)')).toMatch(parseError('ParseInt', '300', 'value out of range'));
    expect(errorOf('strconv.ParseInt("-129", 10, 8)')).toMatch(parseError('ParseInt', '-129', 'value out of range'));
    expect(errorOf('strconv.ParseInt("9223372036854775808", 10, 64)')).toMatch(parseError('ParseInt', '9223372036854775808', 'value out of range'));
    expect(errorOf('strconv.ParseInt("123", 10, -1)')).toMatch(parseError('ParseInt', '123', 'value out of range'));
    for (const [call, value] of [
      ['strconv.ParseInt("-128", 10, 8)', -128],
      ['strconv.ParseInt("0x1F", 0, 64)', 31],
      ['strconv.ParseInt("0o17", 0, 64)', 15],
      ['strconv.ParseInt("017", 0, 64)', 15],
      ['strconv.ParseInt("0b101", 0, 64)', 5],
      ['strconv.ParseInt("1_000", 0, 64)', 1000],
      ['strconv.ParseInt("0x_1", 0, 64)', 1],
      ['strconv.ParseInt("1F", 16, 64)', 31],
      ['strconv.ParseInt("z", 36, 64)', 35],
      ['strconv.ParseInt("Z", 62, 64)', 61],
      ['strconv.ParseInt("+5", 10, 64)', 5],
      ['strconv.Atoi("+42")', 42],
      ['strconv.ParseUint("255", 10, 8)', 255],
      ['strconv.ParseUint("0xff", 0, 8)', 255],
    ] as const)
      expect(holds(call, value), call).toEqual(PASS);
    // bitSize 0 is any size, as CUE reads it today (v0.4: 64 bits); the result is exact past 2^53.
    expect(vet('import "strconv"\nx: strconv.ParseInt("9223372036854775809", 10, 0) & 9223372036854775809\n', {})).toEqual(PASS);
    expect(errorOf('strconv.ParseInt("9223372036854775809", 10, 0) & 9223372036854775808')).toMatch(
      /conflicting values 9223372036854775808 and 9223372036854775809/,
    );
    for (const [func, call, text] of [
      ['ParseInt', 'strconv.ParseInt("1_000", 10, 64)', '1_000'],
      ['ParseInt', 'strconv.ParseInt("0x1F", 16, 64)', '0x1F'],
      ['ParseInt', 'strconv.ParseInt("08", 0, 64)', '08'],
      ['ParseInt', 'strconv.ParseInt("_1", 0, 64)', '_1'],
      ['ParseInt', 'strconv.ParseInt("1__0", 0, 64)', '1__0'],
      ['ParseInt', 'strconv.ParseInt(" 5", 10, 64)', ' 5'],
      ['ParseInt', 'strconv.ParseInt("", 10, 64)', ''],
      ['Atoi', 'strconv.Atoi("12abc")', '12abc'],
      ['ParseUint', 'strconv.ParseUint("1.5", 10, 64)', '1.5'],
    ] as const)
      expect(errorOf(call), call).toMatch(parseError(func, text, 'invalid syntax'));
    expect(errorOf('strconv.ParseUint("256", 10, 8)')).toMatch(parseError('ParseUint', '256', 'value out of range'));
    expect(errorOf('strconv.ParseUint("-1", 10, 8)')).toMatch(parseError('ParseUint', '-1', 'value out of range'));
    // A descriptor's number with a tail no longer passes as its prefix.
    const port = 'import "strconv"\nport: string\n_n: strconv.Atoi(port) & <65536\n';
    expect(vet(port, { port: '8080' })).toEqual(PASS);
    expect(vet(port, { port: '8080; rm -rf /' })).toMatchObject({ satisfiesPolicy: false });
  });

  it('ParseFloat takes Go float syntax only: no surrounding space, `_` between digits, hexadecimal with an exponent', () => {
    expect(errorOf('strconv.ParseFloat(" 5", 64)')).toMatch(parseError('ParseFloat', ' 5', 'invalid syntax'));
    for (const text of ['5 ', '0x1', '.', '1e', '0b101', '1__000', '1_', '_1', 'Infinity1', '+-1', '1e+', ''])
      expect(errorOf(`strconv.ParseFloat(${JSON.stringify(text)}, 64)`), text).toMatch(parseError('ParseFloat', text, 'invalid syntax'));
    expect(errorOf('strconv.ParseFloat("1e400", 64)')).toMatch(parseError('ParseFloat', '1e400', 'value out of range'));
    expect(errorOf('strconv.ParseFloat("1e39", 32)')).toMatch(parseError('ParseFloat', '1e39', 'value out of range'));
    for (const [text, bits, value] of [
      ['5', 64, 5],
      ['1_000', 64, 1000],
      ['0x1p-2', 64, 0.25],
      ['0x1_0p0', 64, 16],
      ['0x.8p1', 64, 1],
      ['.5', 64, 0.5],
      ['5.', 64, 5],
      ['+1.5e+2', 64, 150],
      ['1e-400', 64, 0],
      ['0.1', 32, 0.10000000149011612],
    ] as const)
      // A float: 5.0 is not the int 5 of a descriptor, it equals it.
      expect(holds(`strconv.ParseFloat(${JSON.stringify(text)}, ${bits}) == ${value}`, true), text).toEqual(PASS);
    // Go's infinities and NaN are numbers the native evaluator does not hold: refused (stricter than CUE).
    expect(errorOf('strconv.ParseFloat("inf", 64)')).toMatch(/^x: error in call to strconv.ParseFloat: strconv.ParseFloat: parsing "inf": not a finite number/);
  });

  it('FormatFloat honours its format, precision and bit size as Go does (ties to even), the format a letter or its byte', () => {
    for (const [call, text] of [
      ['strconv.FormatFloat(3.14159, "f", 2, 64)', '3.14'],
      ['strconv.FormatFloat(3.14159, 102, 2, 64)', '3.14'],
      ['strconv.FormatFloat(2.5, "f", 0, 64)', '2'],
      ['strconv.FormatFloat(0.125, "f", 2, 64)', '0.12'],
      ['strconv.FormatFloat(1234.5678, "e", 3, 64)', '1.235e+03'],
      ['strconv.FormatFloat(1234.5678, "E", -1, 64)', '1.2345678E+03'],
      ['strconv.FormatFloat(1234.5678, "g", -1, 64)', '1234.5678'],
      ['strconv.FormatFloat(1e21, "g", -1, 64)', '1e+21'],
      ['strconv.FormatFloat(1e20, "f", -1, 64)', '100000000000000000000'],
      ['strconv.FormatFloat(0.000001234, "g", -1, 64)', '1.234e-06'],
      ['strconv.FormatFloat(0.0001234, "g", 2, 64)', '0.00012'],
      ['strconv.FormatFloat(123456, "g", 3, 64)', '1.23e+05'],
      ['strconv.FormatFloat(100, "g", 3, 64)', '100'],
      ['strconv.FormatFloat(1.5, "G", 10, 64)', '1.5'],
      ['strconv.FormatFloat(123456789, "g", 20, 64)', '123456789'],
      ['strconv.FormatFloat(5, "e", 0, 64)', '5e+00'],
      ['strconv.FormatFloat(0.1, "f", 20, 64)', '0.10000000000000000555'],
      ['strconv.FormatFloat(0.1, "f", -1, 32)', '0.1'],
      ['strconv.FormatFloat(0.1, "f", 10, 32)', '0.1000000015'],
      ['strconv.FormatFloat(1e100, "f", 0, 64)', '10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104'],
      ['strconv.FormatFloat(1, "b", -1, 64)', '4503599627370496p-52'],
      ['strconv.FormatFloat(1, "x", -1, 64)', '0x1p+00'],
      ['strconv.FormatFloat(3.5, "X", 2, 64)', '0X1.C0P+01'],
      ['strconv.FormatFloat(1, "z", -1, 64)', '%z'],
    ] as const)
      expect(holds(call, text), call).toEqual(PASS);
    expect(errorOf('strconv.FormatFloat(1, "f", -1, 16)')).toMatch(
      /^x: error in call to strconv.FormatFloat: strconv: illegal AppendFloat\/FormatFloat bitSize/,
    );
    expect(errorOf('strconv.FormatFloat(3.02, 300, 4, 64)')).toMatch(/^x: error in call to strconv.FormatFloat: format value 300 out of range \[0, 255\]/);
    expect(errorOf('strconv.FormatFloat(3.02, 1.0, 4, 64)')).toMatch(/^x: error in call to strconv.FormatFloat: unexpected kind float/);
    expect(errorOf('strconv.FormatFloat(3.02, "ff", 4, 64)')).toMatch(/^x: error in call to strconv.FormatFloat: expected single character string/);
  });

  it('FormatInt takes bases 2 to 62 (math/big) and integers past 2^53 exactly, Quote escapes as Go does', () => {
    expect(holds('strconv.FormatInt(255, 16)', 'ff')).toEqual(PASS);
    expect(holds('strconv.FormatInt(-255, 2)', '-11111111')).toEqual(PASS);
    expect(holds('strconv.FormatInt(61, 62)', 'Z')).toEqual(PASS);
    expect(errorOf('strconv.FormatInt(10, 1)')).toMatch(/^x: error in call to strconv.FormatInt: invalid base/);
    expect(holds('strconv.FormatInt(-9007199254740993, 10)', '-9007199254740993')).toEqual(PASS);
    expect(holds('strconv.Quote("a\\u00a0b\\u0000c\\"e\\\\f\\tg\\u007fh")', '"a\\u00a0b\\x00c\\"e\\\\f\\tg\\x7fh"')).toEqual(PASS);
    // Past U+07FF, what Go calls printable is its own Unicode tables': CUE judges it (the policy, or a pair, goes to the reference evaluator).
    expect(compileNative(script('strconv.Quote("\\u2028😀")'))).toEqual({
      ok: false,
      unsupported: expect.stringMatching(/^strconv.Quote of a character past U\+07FF/),
    });
  });

  it('has no builtin CUE does not have: math.Max, math.Min and strconv.Itoa are unknown, as in CUE', () => {
    for (const expression of ['math.Max(1, 2)', 'math.Min(1, 2)', 'strconv.Itoa(1)']) expect(compileNative(script(expression))).toMatchObject({ ok: false });
  });
});

describe('builtins follow CUE: strconv.Unquote', () => {
  it('unquotes a quoted string only: not a number, not a lone surrogate (natively both were values)', () => {
    expect(holds('strconv.Unquote("\\"a\\\\tb\\"")', 'a\tb')).toEqual(PASS);
    expect(errorOf('strconv.Unquote("5")')).toMatch(/^x: error in call to strconv.Unquote: invalid syntax/);
    expect(errorOf('strconv.Unquote("null")')).toMatch(/^x: error in call to strconv.Unquote: invalid syntax/);
    expect(errorOf('strconv.Unquote("\\"\\\\ud800\\"")')).toMatch(/^x: error in call to strconv.Unquote: unmatched surrogate pair/);
  });
});

describe('builtins follow Go: time', () => {
  const time = 'import "time"\nt: time.Time\n';
  const duration = 'import "time"\nd: time.Duration\n';

  it('time.Time is time.Parse(time.RFC3339Nano): an upper case T and Z, in range', () => {
    for (const text of [
      '2024-01-01t00:00:00Z',
      '2024-01-01T00:00:00z',
      '2024-01-01 00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:00:60Z',
      '2024-01-01T00:00:00.Z',
      '2024-01-01T00:00:00+0100',
      '2024-01-01T00:00:00+1:00',
      '2024-1-01T00:00:00Z',
      '2024-01-01T01:0:00Z',
      '+024-01-01T01:00:00Z',
      '2024-01-01T00:00:00ZZ',
      // Go's offsets go up to 24:60 (v0.4's Go took any two digits).
      '2024-01-01T00:00:00+25:00',
      '2024-01-01T00:00:00+01:61',
    ])
      expect(vet(time, { t: text }), text).toMatchObject({
        satisfiesPolicy: false,
        errors: [
          `t: invalid value ${JSON.stringify(text)} (does not satisfy time.Time()): error in call to time.Time: invalid time ${JSON.stringify(text)}:\n    policy.cue:2:8`,
        ],
      });
    for (const text of [
      '2024-01-01T00:00:00Z',
      '2024-02-29T23:59:59.999999999+05:30',
      '0000-01-01T00:00:00-00:00',
      '2024-01-01T1:00:00Z',
      '2024-01-01T00:00:00+24:00',
      '2024-01-01T00:00:00+23:60',
      // Go since 1.17: a comma before the fraction, and more than nine digits.
      '2024-01-01T00:00:00,5Z',
      '2024-01-01T00:00:00.1234567891Z',
    ])
      expect(vet(time, { t: text }), text).toEqual(PASS);
    expect(errorOf('time.Time("2024-01-01t00:00:00Z")')).toMatch(/^x: error in call to time.Time: invalid time "2024-01-01t00:00:00Z"/);
  });

  it('time.Duration is time.ParseDuration: its nanoseconds must fit an int64, in every unit and sum', () => {
    for (const [text, reason] of [
      ['9999999999999h', 'invalid duration "9999999999999h"'],
      ['2562048h', 'invalid duration "2562048h"'],
      ['153722867281m', 'invalid duration "153722867281m"'],
      ['9223372036.854775808s', 'invalid duration "9223372036.854775808s"'],
      ['9223372036854776ms', 'invalid duration "9223372036854776ms"'],
      ['9223372036854775808ns', 'invalid duration "9223372036854775808ns"'],
      ['2562047h47m16.854775808s', 'invalid duration "2562047h47m16.854775808s"'],
      ['2562047h2562047h', 'invalid duration "2562047h2562047h"'],
      ['', 'invalid duration ""'],
      ['.s', 'invalid duration ".s"'],
      ['1', 'missing unit in duration "1"'],
      ['1h-1m', 'unknown unit "h-" in duration "1h-1m"'],
      ['1d', 'unknown unit "d" in duration "1d"'],
      ['1H', 'unknown unit "H" in duration "1H"'],
    ])
      expect(vet(duration, { d: text }), text).toMatchObject({
        satisfiesPolicy: false,
        errors: [
          `d: invalid value ${JSON.stringify(text)} (does not satisfy time.Duration()): error in call to time.Duration: time: ${reason}:\n    policy.cue:2:8`,
        ],
      });
    for (const text of [
      '2562047h',
      '9223372036854775807ns',
      '2562047h47m16.854775807s',
      '9223372036.854775807s',
      '-9223372036854775808ns',
      '1.5h',
      '+1h',
      '0',
      '-0',
      '.5s',
      '5.s',
      '1µs',
      '1μs',
      '1us',
      '1h2m3.5s',
      '1.000000000000000000000000001h',
    ])
      expect(vet(duration, { d: text }), text).toEqual(PASS);
  });
});

describe('no builtin hangs or exhausts memory', () => {
  const tooLarge = (what: string) =>
    expect.stringMatching(
      new RegExp(
        `^${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} would make \\d+ (characters|elements), more than the native evaluator's limit of ${MAX_OUTPUT}$`,
      ),
    );
  /** `x: <expression>`, reading the descriptor's `n` (so the save check leaves it to the descriptor), fails the pair. */
  const failsCleanly = (expression: string, what: string, n: number | string) => {
    const result = judgeNative(
      compiled(script(expression, `n: ${typeof n === 'number' ? 'int' : 'string'}\n`)),
      { n },
      { requireConcrete: true, metric: false },
    );
    expect(result, expression).toEqual({ satisfiesPolicy: false, isError: true, errors: [tooLarge(what)] });
  };

  it('refuses a result past the output bound before building it: the pair fails, it never passes', () => {
    failsCleanly('strings.Repeat("ab", n)', 'strings.Repeat', 1_000_000);
    failsCleanly('strings.Replace(strings.Repeat("x", n), "", "-", -1)', 'strings.Replace', 600_000);
    failsCleanly('strings.Replace(strings.Repeat("x", n), "x", "yy", -1)', 'strings.Replace', 600_000);
    failsCleanly('list.Range(0, n, 1)', 'list.Range', 1_000_000_000_000);
    failsCleanly('list.Repeat([1, 2], n)', 'list.Repeat', 1_000_000);
    failsCleanly('strings.Join([strings.Repeat("x", n), strings.Repeat("y", n)], "")', 'strings.Join', 600_000);
    failsCleanly('strings.Repeat("x", n) + strings.Repeat("y", n)', 'the operator +', 600_000);
    failsCleanly('"ab" * n', 'the operator *', 600_000);
    failsCleanly('"\\(strings.Repeat("x", n))\\(strings.Repeat("y", n))"', 'the interpolation', 600_000);
    // The descriptor's own string made larger than the bound.
    failsCleanly('strings.Replace(n, "", "--", -1)', 'strings.Replace', 'x'.repeat(400_000));
    // An empty-matching pattern puts the replacement at every position: stopped as the result grows, not once it is built.
    failsCleanly('regexp.ReplaceAll("", n, "' + '-'.repeat(64) + '")', 'regexp.ReplaceAll', 'x'.repeat(400_000));
    failsCleanly('regexp.ReplaceAllLiteral("y*", n, "' + '-'.repeat(64) + '")', 'regexp.ReplaceAllLiteral', 'x'.repeat(400_000));
    // A disjunction or a default cannot drop it: the pair fails.
    failsCleanly('*strings.Repeat("ab", n) | "short"', 'strings.Repeat', 1_000_000);
    // Up to the bound it is a value.
    expect(vet(script('len(strings.Repeat("ab", n))', 'n: int\n'), { n: 500_000, x: MAX_OUTPUT })).toEqual(PASS);
  });

  it("keeps CUE's own limit on repeat counts: an error of the value", () => {
    const repeat = vet(script('strings.Repeat("x", n)', 'n: int\n'), { n: 1_000_000_000_000 });
    expect(repeat).toMatchObject({
      satisfiesPolicy: false,
      isError: false,
      errors: [expect.stringMatching(/^x: error in call to strings.Repeat: count 1000000000000 exceeds limit of 1000000/)],
    });
    const list = vet(script('list.Repeat([1], n)', 'n: int\n'), { n: 2_000_000 });
    expect(list).toMatchObject({
      satisfiesPolicy: false,
      isError: false,
      errors: [expect.stringMatching(/^x: error in call to list.Repeat: count 2000000 exceeds limit of 1000000/)],
    });
  });

  it("counts a builtin's work against the step budget, in proportion to what it reads and makes", () => {
    const loop = (size: number) => `import "strings"\nimport "list"\nn: int\nx: [for i in list.Range(0, n, 1) {len(strings.Repeat("ab", ${size}))}]\n`;
    const options = { requireConcrete: true, metric: false, maxSteps: 1_000_000 };
    expect(judgeNative(compiled(loop(400_000)), { n: 1000 }, options)).toEqual({
      satisfiesPolicy: false,
      isError: true,
      errors: ['the evaluation took more than 1000000 steps (cue-config.max-steps)'],
    });
    // The same builtins on small strings stay well within it.
    expect(judgeNative(compiled(loop(4)), { n: 1000 }, options)).toEqual(PASS);
  });

  it("list.UniqueItems of a descriptor's long list returns: scalars at once, structs within the budget", () => {
    const unique = 'import "list"\nitems: list.UniqueItems\n';
    const many = Array.from({ length: 50_000 }, (_, i) => `item-${i}`);
    expect(vet(unique, { items: many })).toEqual(PASS);
    expect(vet(unique, { items: [...many, 'item-7'] })).toMatchObject({ satisfiesPolicy: false, isError: false });
    expect(vet(unique, { items: [1, 1.0] })).toMatchObject({ satisfiesPolicy: false });
    expect(vet(unique, { items: [{ a: 1 }, { a: 2 }, { a: 1 }] })).toMatchObject({ satisfiesPolicy: false });
    const structs = Array.from({ length: 5000 }, (_, i) => ({ id: i }));
    expect(judgeNative(compiled(unique), { items: structs }, { requireConcrete: true, metric: false })).toEqual({
      satisfiesPolicy: false,
      isError: true,
      errors: ['the evaluation took more than 1000000 steps (cue-config.max-steps)'],
    });
  });

  it('sends such a policy away cleanly when it is saved: no hang, no exhausted memory', () => {
    for (const expression of [
      'strings.Replace(strings.Repeat("x", 600000), "", "-", -1)',
      'list.Range(0, 1000000000000, 1)',
      'strings.Repeat("ab", 1000000)',
      '[for i in list.Range(0, 1000, 1) {strings.Repeat("ab", 400000)}]',
    ])
      expect(compileNative(script(expression)), expression).toMatchObject({
        ok: false,
        unsupported: expect.stringMatching(/^the native evaluator did not finish checking it: /),
      });
    expect(compileNative(script('strings.Repeat("x", 1000000000000)'))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/count 1000000000000 exceeds limit/),
    });
  });
});
