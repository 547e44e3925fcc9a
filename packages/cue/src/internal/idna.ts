/**
 * CUE v0.4's net.FQDN: golang.org/x/net/idna (2020-02) ToASCII with ValidateLabels, VerifyDNSLength
 * and StrictDomainName, on text that is ASCII (anything else is refused before). Its rules, as that
 * code applies them (proven against CUE in tests/unit/cue-builtin-differential.test.ts):
 * - labels split at dots; a last empty label is skipped (`a.`), and so are two dots ending the text
 *   (`a..`) until an `xn--` label was decoded; any other empty label is refused;
 * - an `xn--` label is decoded from Punycode; what it decodes to must be lower-case letters, digits
 *   and hyphens; a label (decoded) may not start or end with a hyphen, nor have `--` as its third
 *   and fourth characters (when longer than four); nothing else in ASCII is refused (`a_b` passes);
 * - each label, decoded, at most 63 characters, the whole (decoded, without a last dot) at most 253.
 * A label that decodes to Unicode is judged by UTS 46 tables this module does not have: BeyondNative,
 * unless it holds what every version of those tables refuses.
 */
import { BeyondNative } from './beyond-native';

const ACE_PREFIX = 'xn--';
const NOT_ASCII = /[^\p{ASCII}]/u;

/** Refused by every Unicode version's IDNA table: ASCII other than a-z, 0-9 and hyphen (STD3, or mapped), C1 controls. */
function refusedEverywhere(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0xa0 && !/^[a-z0-9-]$/.test(char);
}

export function isFqdn(text: string): boolean {
  if (NOT_ASCII.test(text)) return false;
  const labels = new LabelIterator(text);
  for (; !labels.done(); labels.next()) {
    const label = labels.label();
    if (label === '') return false;
    if (!label.startsWith(ACE_PREFIX)) {
      if (!validLabel(label)) return false;
      continue;
    }
    const decoded = decodePunycode(label.slice(ACE_PREFIX.length));
    if (decoded === undefined || [...decoded].some(refusedEverywhere)) return false;
    if (NOT_ASCII.test(decoded)) throw new BeyondNative(`the IDNA label ${JSON.stringify(label)} decodes to Unicode, which only CUE's tables judge`);
    labels.set(decoded);
    if (!validLabel(decoded)) return false;
  }
  for (labels.reset(); !labels.done(); labels.next()) {
    const { length } = labels.label();
    if (length === 0 || length > 63) return false;
  }
  const result = labels.result();
  return result.length >= 1 && result.length - (result.endsWith('.') ? 1 : 0) <= 253;
}

/** validateLabel with CheckHyphens (V2, V3); an empty label is A4. */
function validLabel(label: string): boolean {
  if (label === '') return false;
  if (label.length > 4 && label[2] === '-' && label[3] === '-') return false;
  return !label.startsWith('-') && !label.endsWith('-');
}

/** x/net/idna's labelIter, whose two modes skip empty labels at the end differently. */
class LabelIterator {
  private slice: string[] | undefined;
  private start = 0;
  private end = 0;
  private index = 0;

  constructor(private readonly text: string) {}

  reset(): void {
    this.start = 0;
    this.end = 0;
    this.index = 0;
  }

  done(): boolean {
    return this.start >= this.text.length;
  }

  result(): string {
    return this.slice ? this.slice.join('.') : this.text;
  }

  label(): string {
    if (this.slice) return this.slice[this.index];
    const dot = this.text.indexOf('.', this.start);
    this.end = dot === -1 ? this.text.length : dot;
    return this.text.slice(this.start, this.end);
  }

  next(): void {
    this.index++;
    if (this.slice) {
      if (this.index >= this.slice.length || (this.index === this.slice.length - 1 && this.slice[this.index] === '')) this.start = this.text.length;
    } else {
      this.start = this.end + 1;
      if (this.start === this.text.length - 1 && this.text[this.start] === '.') this.start = this.text.length;
    }
  }

  set(label: string): void {
    this.slice ??= this.text.split('.');
    this.slice[this.index] = label;
  }
}

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const MAX_INT32 = 2 ** 31 - 1;

function decodeDigit(code: number): number | undefined {
  if (code >= 0x30 && code <= 0x39) return code - 0x30 + 26;
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  if (code >= 0x61 && code <= 0x7a) return code - 0x61;
  return undefined;
}

function adapt(delta: number, points: number, first: boolean): number {
  let d = first ? Math.trunc(delta / 700) : Math.trunc(delta / 2);
  d += Math.trunc(d / points);
  let k = 0;
  for (; d > ((BASE - T_MIN) * T_MAX) / 2; k += BASE) d = Math.trunc(d / (BASE - T_MIN));
  return k + Math.trunc(((BASE - T_MIN + 1) * d) / (d + 38));
}

/** x/net/idna's decode (RFC 3492 with Go's limits); undefined where it errs. */
function decodePunycode(encoded: string): string | undefined {
  if (encoded === '') return '';
  let pos = 1 + encoded.lastIndexOf('-');
  if (pos === 1) return undefined;
  if (pos === encoded.length) return encoded.slice(0, -1);
  const output: number[] = pos === 0 ? [] : [...encoded.slice(0, pos - 1)].map((char) => char.codePointAt(0) as number);
  let [i, n, bias] = [0, 128, 72];
  while (pos < encoded.length) {
    const oldI = i;
    let w = 1;
    for (let k = BASE; ; k += BASE) {
      if (pos === encoded.length) return undefined;
      const digit = decodeDigit(encoded.charCodeAt(pos));
      if (digit === undefined) return undefined;
      pos++;
      i += digit * w;
      if (i > MAX_INT32) return undefined;
      const t = Math.min(Math.max(k - bias, T_MIN), T_MAX);
      if (digit < t) break;
      w *= BASE - t;
      if (w >= MAX_INT32 / BASE) return undefined;
    }
    const points = output.length + 1;
    bias = adapt(i - oldI, points, oldI === 0);
    n += Math.trunc(i / points);
    i %= points;
    if (n > 0x10ffff || output.length >= 1024) return undefined;
    output.splice(i, 0, n);
    i++;
  }
  // Go's string(runes): a surrogate is U+FFFD, as is anything else that is no character.
  return String.fromCodePoint(...output.map((point) => (point >= 0xd800 && point <= 0xdfff ? 0xfffd : point)));
}
