/**
 * CUE's regular expressions are Go's RE2 (regexp/syntax, Perl flags). They run here on re2js, a
 * JavaScript port of RE2/J whose parser is Go's: same syntax, same error messages, matching in
 * time linear in the text (no backtracking). What CUE v0.4's Go (1.15, Unicode 12) reads
 * differently from re2js is settled before re2js sees a pattern:
 * - `(?<name>...)` is Go 1.22's: CUE v0.4 refuses it (`invalid or unsupported Perl syntax: (?<`),
 *   lookbehinds `(?<=`, `(?<!` with it;
 * - `\p{Name}` takes only the categories and scripts of Unicode 12 (`\p{Kawi}`, `\p{Alphabetic}` refused);
 * - a capture name used twice (`(?P<n>a)(?P<n>b)`) is allowed, as Go allows it;
 * - counted repeats nested past 1000 in all (`(a{1000}b{1000}){1000}`) are Go 1.15's `invalid
 *   repeat count`, where re2js (Go 1.19's limits) would first find the expression too large.
 * The first error in the pattern is reported, as Go's parser reports it. What Go 1.15 reads and
 * re2js does not cannot run here: a pattern nested more than 1000 deep, or past re2js's size limit.
 */
import { RE2JS, RE2JSSyntaxException } from 're2js';

import { BeyondNative } from './beyond-native';

/** A pattern the native evaluator cannot run although CUE can: the policy (or the pair) goes to the reference evaluator. */
class UnsupportedRegexp extends BeyondNative {}

/** A pattern RE2 refuses; the message is Go's error (`error parsing regexp: missing closing ): \`(\``). */
export class InvalidRegexp extends Error {}

/** The error codes of Go 1.15's regexp/syntax, as re2js spells them too (Parser.ERR_*). */
const GO_ERRORS = new Set([
  'regexp/syntax: internal error',
  'invalid character class',
  'invalid character class range',
  'invalid escape sequence',
  'invalid named capture',
  'invalid or unsupported Perl syntax',
  'invalid nested repetition operator',
  'invalid repeat count',
  'invalid UTF-8',
  'missing closing ]',
  'missing closing )',
  'missing argument to repetition operator',
  'trailing backslash at end of expression',
  'unexpected )',
]);

/** Go's unicode.Categories and unicode.Scripts (Unicode 12, Go 1.15) and `Any`: the names `\p{...}` takes in CUE v0.4. */
const UNICODE_NAMES = new Set(
  (
    'Any C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs ' +
    'Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki Bopomofo Brahmi ' +
    'Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee Common Coptic Cuneiform Cypriot ' +
    'Cyrillic Deseret Devanagari Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha ' +
    'Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited ' +
    'Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kayah_Li Kharoshthi Khmer Khojki Khudawadi Lao ' +
    'Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi ' +
    'Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean ' +
    'Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian ' +
    'Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau ' +
    'Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian ' +
    'Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangut Telugu Thaana ' +
    'Thai Tibetan Tifinagh Tirhuta Ugaritic Vai Wancho Warang_Citi Yi Zanabazar_Square'
  ).split(' '),
);

const CAPTURE_NAME = /^[A-Za-z0-9_]+$/;

const goError = (code: string, expr: string) => `error parsing regexp: ${code}: \`${expr}\``;

interface Reading {
  /** The pattern as re2js is given it: later uses of a capture name renamed. */
  readonly pattern: string;
  /** The names given to re2js for a capture name written again, and that name. */
  readonly renamed: ReadonlyMap<string, string>;
  /** The first construct Go 1.15 refuses and re2js reads: where it starts in `pattern`, and Go's error. */
  readonly refused?: { readonly at: number; readonly message: string };
}

/** `\p{Name}`, `\pN`, `\P...` at `at`: its text when Go 1.15 does not know the name, else undefined. */
function unknownUnicodeClass(source: string, at: number): string | undefined {
  let name: string;
  let end: number;
  if (source[at + 2] === '{') {
    end = source.indexOf('}', at + 3) + 1;
    if (end === 0) return undefined; // re2js refuses it as Go does
    name = source.slice(at + 3, end - 1);
    if (name.startsWith('^')) name = name.slice(1);
  } else {
    const code = source.codePointAt(at + 2);
    if (code === undefined) return undefined;
    name = String.fromCodePoint(code);
    end = at + 2 + name.length;
  }
  return UNICODE_NAMES.has(name) ? undefined : source.slice(at, end);
}

/** What Go's repeatIsValid reads of a parsed operand: the counted repeats (`x{n,m}`) it holds, nested. */
interface Operand {
  /** `{min,max}` (max -1 when open), for a counted repeat. */
  readonly repeat?: { readonly min: number; readonly max: number };
  readonly inner: readonly Operand[];
}

/** Go's repeatIsValid: nested counted repeats may not repeat more than n times in all. */
function repeatIsValid(operand: Operand, n: number): boolean {
  if (operand.repeat) {
    if (operand.repeat.max === 0) return true;
    const m = operand.repeat.max < 0 ? operand.repeat.min : operand.repeat.max;
    if (m > n) return false;
    if (m > 0) n = Math.floor(n / m);
  }
  return operand.inner.every((inner) => repeatIsValid(inner, n));
}

/** A group being read: its operands, and the last one, which a repetition operator would take. */
interface Frame {
  readonly operands: Operand[];
  last?: number;
  /** The last token was a repetition: another one is refused (re2js refuses it as Go does). */
  repeated?: boolean;
}

const ATOM: Operand = { inner: [] };

/**
 * Reads a pattern as Go's parser tokenizes it (escapes, `\Q...\E`, character classes, groups,
 * repetitions) far enough to find what Go 1.15 and re2js read differently. Stops at anything
 * malformed: re2js then refuses it with Go's message.
 */
function read(source: string): Reading {
  let out = '';
  const renamed = new Map<string, string>();
  const seen = new Set<string>();
  const frames: Frame[] = [{ operands: [] }];
  let i = 0;
  const refuse = (message: string): Reading => ({ pattern: out + source.slice(i), renamed, refused: { at: out.length, message } });
  const rest = (): Reading => ({ pattern: out + source.slice(i), renamed });
  const frame = () => frames[frames.length - 1];
  const operand = (read: Operand) => {
    frame().operands.push(read);
    frame().last = frame().operands.length - 1;
    frame().repeated = false;
  };
  const copy = (to: number) => {
    out += source.slice(i, to);
    i = to;
  };
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1];
      if (next === 'Q') {
        const end = source.indexOf('\\E', i + 2);
        if (end < 0) return rest();
        if (end > i + 2) operand(ATOM);
        copy(end + 2);
        continue;
      }
      if (next === 'p' || next === 'P') {
        const unknown = unknownUnicodeClass(source, i);
        if (unknown !== undefined) return refuse(goError('invalid character class range', unknown));
      }
      operand(ATOM);
      // `\x{41}`, `\p{Greek}`, `\pL`: the escape with its braces or letter.
      if ((next === 'x' || next === 'p' || next === 'P') && source[i + 2] === '{') {
        const end = source.indexOf('}', i + 3);
        if (end < 0) return rest();
        copy(end + 1);
      } else copy(i + 2 + (next === 'p' || next === 'P' ? String.fromCodePoint(source.codePointAt(i + 2) ?? 0).length : 0));
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j++;
      let first = true;
      while (j < source.length && (source[j] !== ']' || first)) {
        first = false;
        if (source[j] === '[' && source[j + 1] === ':') {
          const end = source.indexOf(':]', j + 2);
          if (end >= 0) {
            j = end + 2;
            continue;
          }
        }
        if (source[j] === '\\') {
          if (source[j + 1] === 'p' || source[j + 1] === 'P') {
            const unknown = unknownUnicodeClass(source, j);
            if (unknown !== undefined) {
              copy(j);
              return refuse(goError('invalid character class range', unknown));
            }
          }
          j += 2;
          continue;
        }
        j++;
      }
      if (j >= source.length) return rest();
      operand(ATOM);
      copy(j + 1);
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      if (source.startsWith('(?<', i)) return refuse(goError('invalid or unsupported Perl syntax', '(?<'));
      if (source.startsWith('(?P<', i)) {
        // Go reads a bare `(?P<` at the very end as flags (`(?P`).
        if (source.length === i + 4) return refuse(goError('invalid or unsupported Perl syntax', '(?P'));
        const end = source.indexOf('>', i);
        const name = end < 0 ? '' : source.slice(i + 4, end);
        if (!CAPTURE_NAME.test(name)) return rest();
        let given = name;
        if (seen.has(name)) {
          for (let k = renamed.size; ; k++) {
            given = `cgp_${k}_${name}`;
            if (!source.includes(given) && !renamed.has(given)) break;
          }
          renamed.set(given, name);
        }
        seen.add(name);
        out += `(?P<${given}>`;
        i = end + 1;
        frames.push({ operands: [] });
        continue;
      }
      const flags = /^\(\?[imsU-]*([:)])/.exec(source.slice(i));
      if (!flags) return rest();
      // `(?i:` opens a group; `(?i)` only sets flags (a repetition after it is not a nested one).
      if (flags[1] === ':') frames.push({ operands: [] });
      else frame().repeated = false;
      copy(i + flags[0].length);
      continue;
    }
    if (c === '(') {
      frames.push({ operands: [] });
      copy(i + 1);
      continue;
    }
    if (c === ')') {
      if (frames.length === 1) return rest();
      const group = frames.pop() as Frame;
      operand({ inner: group.operands });
      copy(i + 1);
      continue;
    }
    if (c === '|') {
      frame().last = undefined;
      copy(i + 1);
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      const counted = c === '{' ? /^\{(0|[1-9][0-9]*)(,(0|[1-9][0-9]*)?)?\}/.exec(source.slice(i)) : undefined;
      if (c === '{' && !counted) {
        operand(ATOM); // a `{` that is not a repetition is a literal
        copy(i + 1);
        continue;
      }
      const { last, repeated } = frame();
      if (last === undefined || repeated) return rest();
      const length = counted ? counted[0].length : 1;
      if (counted) {
        const min = Number(counted[1]);
        const max = counted[2] === undefined ? min : counted[3] === undefined ? -1 : Number(counted[3]);
        if (min > 1000 || max > 1000 || (max >= 0 && min > max)) return rest();
        const repeat: Operand = { repeat: { min, max }, inner: [frame().operands[last]] };
        if ((min >= 2 || max >= 2) && !repeatIsValid(repeat, 1000)) return refuse(goError('invalid repeat count', counted[0]));
        frame().operands[last] = repeat;
      } else frame().operands[last] = { inner: [frame().operands[last]] };
      frame().repeated = true;
      // `x*?`, `x{2}?`: the `?` makes it non-greedy.
      copy(i + length + (source[i + length] === '?' ? 1 : 0));
      continue;
    }
    operand(ATOM);
    copy(i + 1);
  }
  return rest();
}

const shown = (source: string) => JSON.stringify(source.length > 60 ? `${source.slice(0, 60)}…` : source);

/** A re2js refusal in Go's words, the renamed capture names as written. */
function refusal(error: unknown, renamed: ReadonlyMap<string, string>, source: string): Error {
  if (!(error instanceof RE2JSSyntaxException) || !GO_ERRORS.has(error.error))
    return new UnsupportedRegexp(`the regular expression ${shown(source)} cannot run here: ${(error as Error).message}`);
  let expr = error.input ?? '';
  for (const [given, name] of renamed) expr = expr.replaceAll(`(?P<${given}>`, `(?P<${name}>`);
  return new InvalidRegexp(goError(error.error, expr));
}

/** Compiles what re2js reads as Go 1.15 does; throws InvalidRegexp or UnsupportedRegexp. */
function compile(source: string): Regexp {
  const reading = read(source);
  if (reading.refused) {
    // Go reports the first error in the pattern: one re2js finds before the refused construct comes first.
    try {
      RE2JS.compile(reading.pattern.slice(0, reading.refused.at));
    } catch (error) {
      const code = error instanceof RE2JSSyntaxException ? error.error : undefined;
      // Those two are reported at the end of the pattern (or of its class), which the prefix cuts short;
      // the limits of re2js (Go 1.19's) are not Go 1.15's.
      if (code === 'missing closing )' || code === 'missing closing ]' || code === 'expression too large' || code === 'expression nests too deeply')
        throw new InvalidRegexp(reading.refused.message);
      // Go shows the whole pattern with an unexpected `)`.
      if (code === 'unexpected )') throw new InvalidRegexp(goError(code, source));
      throw refusal(error, reading.renamed, source);
    }
    throw new InvalidRegexp(reading.refused.message);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(reading.pattern);
  } catch (error) {
    throw refusal(error, reading.renamed, source);
  }
  const names = new Array<string>(compiled.groupCount() + 1).fill('');
  for (const [name, index] of Object.entries(compiled.namedGroups())) names[index] = reading.renamed.get(name) ?? name;
  return new Regexp(compiled, names);
}

type Indices = number[];

/** A compiled RE2 pattern with the operations of Go's regexp.Regexp that CUE calls (string forms). */
export class Regexp {
  private readonly re2: ReturnType<RE2JS['re2']>;

  constructor(
    compiled: RE2JS,
    /** Go's SubexpNames: '' for group 0 and unnamed groups. */
    readonly names: readonly string[],
  ) {
    this.re2 = compiled.re2();
  }

  /** MatchString. */
  test(text: string): boolean {
    return this.re2.match(text) as boolean;
  }

  /** FindString, undefined when nothing matches. */
  find(text: string): string | undefined {
    const found = this.re2.findIndex(text) as Indices | null;
    return found ? text.slice(found[0], found[1]) : undefined;
  }

  /** FindAllString: up to n matches (all when n < 0), undefined when none. */
  findAll(text: string, n: number): string[] | undefined {
    return (this.re2.findAll(text, n) as string[] | null) ?? undefined;
  }

  /** FindStringSubmatch: the match and its groups, '' for a group that took no part. */
  findSubmatch(text: string): string[] | undefined {
    const found = this.re2.findSubmatchIndex(text) as Indices | null;
    return found ? this.groups(text, found) : undefined;
  }

  /** FindAllStringSubmatch. */
  findAllSubmatch(text: string, n: number): string[][] | undefined {
    const all = this.re2.findAllSubmatchIndex(text, n) as Indices[] | null;
    return all ? all.map((found) => this.groups(text, found)) : undefined;
  }

  /** The named groups of a match, as CUE's FindNamedSubmatch builds them (a later group of the same name wins). */
  named(groups: readonly string[]): Record<string, string> {
    const out: Record<string, string> = {};
    this.names.forEach((name, index) => {
      if (name !== '') out[name] = groups[index];
    });
    return out;
  }

  /**
   * ReplaceAllString: `$1`, `${1}`, `$name`, `${name}` expanded as Go's Regexp.Expand does, `$$` a
   * dollar. `limit` is told the length of the result as it grows, and throws to stop it: an
   * empty-matching pattern puts the replacement at every position of the text.
   */
  replaceAll(text: string, template: string, limit: (length: number) => void): string {
    return this.replace(text, (found) => this.expand(template, text, found), limit);
  }

  /** ReplaceAllLiteralString. */
  replaceAllLiteral(text: string, replacement: string, limit: (length: number) => void): string {
    return this.replace(text, () => replacement, limit);
  }

  private groups(text: string, found: Indices): string[] {
    return this.names.map((_, index) => (found[2 * index] >= 0 ? text.slice(found[2 * index], found[2 * index + 1]) : ''));
  }

  /** Go's replaceAll: the matches of FindAll (no empty match right after a match) replaced. */
  private replace(text: string, replacement: (found: Indices) => string, limit: (length: number) => void): string {
    const all = (this.re2.findAllSubmatchIndex(text, -1) as Indices[] | null) ?? [];
    let out = '';
    let last = 0;
    for (const found of all) {
      out += text.slice(last, found[0]) + replacement(found);
      limit(out.length + text.length - found[1]);
      last = found[1];
    }
    return out + text.slice(last);
  }

  private expand(template: string, text: string, found: Indices): string {
    let out = '';
    let rest = template;
    for (let dollar = rest.indexOf('$'); dollar >= 0; dollar = rest.indexOf('$')) {
      out += rest.slice(0, dollar);
      rest = rest.slice(dollar + 1);
      if (rest.startsWith('$')) {
        out += '$';
        rest = rest.slice(1);
        continue;
      }
      const reference = /^(?:\{([\p{L}\p{Nd}_]+)\}|([\p{L}\p{Nd}_]+))/u.exec(rest);
      if (!reference) {
        out += '$'; // malformed: the dollar stays as it is
        continue;
      }
      rest = rest.slice(reference[0].length);
      const name = reference[1] ?? reference[2];
      // A number without leading zeros (nine digits at most) is a group's index, anything else a group's name.
      const index = /^(?:0|[1-9][0-9]{0,8})$/.test(name) ? Number(name) : -1;
      const group =
        index >= 0 ? (2 * index + 1 < found.length && found[2 * index] >= 0 ? index : -1) : this.names.findIndex((n, k) => n === name && found[2 * k] >= 0);
      if (group >= 0) out += text.slice(found[2 * group], found[2 * group + 1]);
    }
    return out + rest;
  }
}

const cache = new Map<string, Regexp | InvalidRegexp | UnsupportedRegexp>();

/**
 * The pattern compiled, or Go's refusal (an InvalidRegexp: CUE reports it where the pattern is
 * used). Throws an UnsupportedRegexp for a pattern only CUE can run. Compiled patterns are kept.
 */
export function regexpOf(source: string): Regexp | InvalidRegexp {
  let known = cache.get(source);
  if (!known) {
    try {
      known = compile(source);
    } catch (error) {
      if (!(error instanceof InvalidRegexp || error instanceof UnsupportedRegexp)) throw error;
      known = error;
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(source, known);
  }
  if (known instanceof UnsupportedRegexp) throw known;
  return known;
}

/** Go's regexp.QuoteMeta. */
export const quoteMeta = (text: string): string => text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
