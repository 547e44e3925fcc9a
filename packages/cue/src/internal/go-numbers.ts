/**
 * Go's number syntax and formatting as CUE's strconv builtins use them (pkg/strconv): ParseInt, ParseUint and
 * Atoi read with math/big's Int.SetString (any size, then checked against bitSize), ParseFloat and FormatFloat
 * are Go's strconv, Quote is strconv.Quote. JavaScript's parseInt takes a prefix ("12abc" is 12), Number takes
 * surrounding spaces, and toFixed rounds a tie up where Go rounds it to even.
 */

/** A number CUE's strconv refuses, with the reason of Go's strconv.NumError (`invalid syntax`, `value out of range`). */
export class NumberError extends Error {}

const SYNTAX = 'invalid syntax';

const RANGE = 'value out of range';

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** math/big's digit value of a character in a base (letters are one digit for bases up to 36, two beyond). */
function digitValue(code: number, base: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x7a) return code - 0x61 + 10;
  if (code >= 0x41 && code <= 0x5a) return base <= 36 ? code - 0x41 + 10 : code - 0x41 + 36;
  return 63;
}

/**
 * math/big's Int.SetString(text, base): an optional sign, then digits of the base; base 0 reads a prefix (`0b`,
 * `0o`, `0x`, or `0` for octal) and allows `_` between digits (and after a prefix). The whole text, or undefined.
 */
function parseBigInt(text: string, base: number): bigint | undefined {
  if (base !== 0 && (base < 2 || base > 62)) throw new NumberError(`invalid number base ${base}`);
  let at = 0;
  const negative = text[0] === '-';
  if (text[0] === '-' || text[0] === '+') at = 1;
  let radix = base;
  let octalZero = false;
  // What came before: a digit ('0'), a separator ('_'), or nothing yet ('.').
  let previous = '.';
  let badSeparator = false;
  let count = 0;
  if (base === 0) {
    radix = 10;
    if (text[at] === '0') {
      previous = '0';
      count = 1;
      at++;
      const prefix = text[at]?.toLowerCase();
      if (at < text.length) {
        if (prefix === 'b' || prefix === 'o' || prefix === 'x') {
          radix = prefix === 'b' ? 2 : prefix === 'o' ? 8 : 16;
          count = 0;
          at++;
        } else {
          radix = 8;
          octalZero = true;
          count = 0;
        }
      }
    }
  }
  let value = 0n;
  const big = BigInt(radix);
  for (; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x5f && base === 0) {
      if (previous !== '0') badSeparator = true;
      previous = '_';
      continue;
    }
    const digit = digitValue(code, radix);
    if (digit >= radix) break;
    previous = '0';
    count++;
    value = value * big + BigInt(digit);
  }
  if (at < text.length || badSeparator || previous === '_') return undefined;
  if (count === 0 && !octalZero) return undefined;
  return negative ? -value : value;
}

const bitLength = (value: bigint): number => (value < 0n ? -value : value).toString(2).length - (value === 0n ? 1 : 0);

/**
 * CUE's strconv.ParseInt (and Atoi, its base 10 and bitSize 0): an integer of any size for bitSize 0, else one
 * a signed integer of bitSize bits holds. The message of Go's strconv.NumError when not.
 */
export function parseGoInt(text: string, base: number, bitSize: number, func = 'ParseInt'): bigint {
  const fail = (reason: string) => new NumberError(`strconv.${func}: parsing ${goQuote(text)}: ${reason}`);
  if (bitSize < 0) throw fail(RANGE);
  const value = parseBigInt(text, base);
  if (value === undefined) throw fail(SYNTAX);
  if (bitSize === 0) return value;
  const limit = 1n << BigInt(bitSize - 1);
  if (value < -limit || value >= limit) throw fail(RANGE);
  return value;
}

/** CUE's strconv.ParseUint: as ParseInt, for integers that are not negative and hold in bitSize bits. */
export function parseGoUint(text: string, base: number, bitSize: number): bigint {
  const fail = (reason: string) => new NumberError(`strconv.ParseUint: parsing ${goQuote(text)}: ${reason}`);
  if (bitSize < 0) throw fail(RANGE);
  const value = parseBigInt(text, base);
  if (value === undefined) throw fail(SYNTAX);
  if (value < 0n || (bitSize > 0 && bitLength(value) > bitSize)) throw fail(RANGE);
  return value;
}

/** math/big's Int.Text(base), for bases 2 to 62 (digits 0-9, a-z, A-Z). */
export function formatBigInt(value: bigint, base: number): string {
  if (base < 2 || base > 62) throw new NumberError('invalid base');
  if (base <= 36) return value.toString(base);
  let rest = value < 0n ? -value : value;
  let out = '';
  const big = BigInt(base);
  do {
    out = DIGITS[Number(rest % big)] + out;
    rest /= big;
  } while (rest > 0n);
  return value < 0n ? `-${out}` : out;
}

/** Go's underscoreOK: each `_` is between digits, or between a base prefix and a digit. */
function underscoresOk(text: string): boolean {
  let saw = '^';
  let at = text[0] === '+' || text[0] === '-' ? 1 : 0;
  const prefix = text[at] === '0' ? text[at + 1]?.toLowerCase() : undefined;
  const hex = prefix === 'x';
  if (prefix === 'b' || prefix === 'o' || prefix === 'x') {
    at += 2;
    saw = '0';
  }
  for (; at < text.length; at++) {
    const character = text[at];
    if ((character >= '0' && character <= '9') || (hex && /[a-f]/i.test(character))) saw = '0';
    else if (character === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

const DECIMAL_FLOAT = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?$/;

const HEX_FLOAT = /^[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9][0-9_]*$/;
const SPECIAL = /^(?:[+-]?(?:inf|infinity)|nan)$/i;

/**
 * Go's strconv.ParseFloat: decimal and hexadecimal (`0x1p-2`) floating-point syntax, `_` between digits, the
 * nearest float64 (or float32 for bitSize 32; other sizes are 64), and no surrounding space. `inf` and `nan`
 * are numbers in Go; the native evaluator holds neither, so they are refused (CUE, stricter).
 */
export function parseGoFloat(text: string, bitSize: number): number {
  const fail = (reason: string) => new NumberError(`strconv.ParseFloat: parsing ${goQuote(text)}: ${reason}`);
  if (SPECIAL.test(text)) throw fail('not a finite number, which the native evaluator does not hold');
  const hex = HEX_FLOAT.test(text);
  if (!hex && !DECIMAL_FLOAT.test(text)) throw fail(SYNTAX);
  const mantissa = hex ? text.replace(/^[+-]?0[xX]/, '').split(/[pP]/)[0] : text.split(/[eE]/)[0];
  if (!(hex ? /[0-9a-fA-F]/ : /[0-9]/).test(mantissa) || (text.includes('_') && !underscoresOk(text))) throw fail(SYNTAX);
  const clean = text.replace(/_/g, '');
  const value = hex ? hexFloat(clean) : Number(clean);
  const sized = bitSize === 32 ? Math.fround(value) : value;
  if (!Number.isFinite(sized)) throw fail(RANGE);
  return sized;
}

function hexFloat(text: string): number {
  const negative = text[0] === '-';
  const [mantissa, power] = text.replace(/^[+-]?0[xX]/, '').split(/[pP]/);
  const [whole, fraction = ''] = mantissa.split('.');
  const digits = BigInt(`0x${whole}${fraction}`);
  let exponent = Number(power) - 4 * fraction.length;
  let value = Number(digits);
  // Scaled in steps a double holds exactly.
  while (exponent > 0 && Number.isFinite(value)) {
    const step = Math.min(exponent, 1000);
    value *= 2 ** step;
    exponent -= step;
  }
  while (exponent < 0 && value !== 0) {
    const step = Math.min(-exponent, 1000);
    value /= 2 ** step;
    exponent += step;
  }
  return negative ? -value : value;
}

/** A decimal as Go's strconv formats from: digits without leading or trailing zeros, the point after `point` of them. */
interface Digits {
  digits: string;
  point: number;
}

/** The exact decimal value of a finite double (every double is a finite decimal). */
function exactDigits(value: number): Digits {
  if (value === 0) return { digits: '', point: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  const text = exponent >= 0 ? (mantissa << BigInt(exponent)).toString() : (mantissa * 5n ** BigInt(-exponent)).toString();
  const point = exponent >= 0 ? text.length : text.length + exponent;
  return trim({ digits: text, point });
}

function trim(decimal: Digits): Digits {
  const digits = decimal.digits.replace(/0+$/, '');
  return digits === '' ? { digits: '', point: 0 } : { digits, point: decimal.point };
}

/** Go's decimal.Round: to `count` digits, a tie (exactly half) to even. */
function round(decimal: Digits, count: number): Digits {
  const { digits, point } = decimal;
  if (count < 0 || count >= digits.length) return decimal;
  const next = digits.charCodeAt(count) - 0x30;
  const tie = next === 5 && count + 1 === digits.length;
  const up = tie ? count > 0 && (digits.charCodeAt(count - 1) - 0x30) % 2 === 1 : next >= 5;
  if (!up) return trim({ digits: digits.slice(0, count), point });
  let i = count - 1;
  while (i >= 0 && digits[i] === '9') i--;
  if (i < 0) return { digits: '1', point: point + 1 };
  return trim({ digits: digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1), point });
}

/** The shortest decimal that reads back as the same float64 (JavaScript's own), or float32. */
function shortestDigits(value: number, bitSize: number): Digits {
  if (value === 0) return { digits: '', point: 0 };
  if (bitSize === 32) {
    const exact = exactDigits(value);
    for (let count = 1; count < 17; count++) {
      const candidate = round(exact, count);
      if (Math.fround(Number(`0.${candidate.digits}e${candidate.point}`)) === value) return candidate;
    }
    return exact;
  }
  const [mantissa, power = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  return trim({ digits, point: Number(power) + 1 });
}

const exponentText = (exponent: number, minimum: number): string => `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(minimum, '0')}`;

/** Go's fmtE: d.ddddde±dd. */
function formatE(negative: boolean, decimal: Digits, precision: number, letter: string): string {
  let out = negative ? '-' : '';
  out += decimal.digits[0] ?? '0';
  if (precision > 0) out += `.${decimal.digits.slice(1, precision + 1).padEnd(precision, '0')}`;
  const exponent = decimal.digits === '' ? 0 : decimal.point - 1;
  return `${out}${letter}${exponentText(exponent, 2)}`;
}

/** Go's fmtF: ddd.ddd. */
function formatF(negative: boolean, decimal: Digits, precision: number): string {
  const { digits, point } = decimal;
  let out = negative ? '-' : '';
  out += point > 0 ? digits.slice(0, point).padEnd(point, '0') : '0';
  if (precision > 0) {
    let fraction = '';
    for (let i = 0; i < precision; i++) {
      const at = point + i;
      fraction += at >= 0 && at < digits.length ? digits[at] : '0';
    }
    out += `.${fraction}`;
  }
  return out;
}

/** The bits of a float64, or of a float32 (as Go's genericFtoa reads them): mantissa with its leading bit, and exponent. */
function floatBits(value: number, bitSize: number): { mantissa: bigint; exponent: number; mantissaBits: number } {
  const view = new DataView(new ArrayBuffer(8));
  if (bitSize === 32) {
    view.setFloat32(0, value);
    const bits = view.getUint32(0);
    const biased = (bits >>> 23) & 0xff;
    const fraction = BigInt(bits & 0x7fffff);
    return { mantissa: biased === 0 ? fraction : fraction | (1n << 23n), exponent: (biased === 0 ? 1 : biased) - 127, mantissaBits: 23 };
  }
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return { mantissa: biased === 0 ? fraction : fraction | (1n << 52n), exponent: (biased === 0 ? 1 : biased) - 1023, mantissaBits: 52 };
}

/** Go's fmtB: mantissa `p` binary exponent. */
function formatB(negative: boolean, value: number, bitSize: number): string {
  const { mantissa, exponent, mantissaBits } = floatBits(value, bitSize);
  const power = exponent - mantissaBits;
  return `${negative ? '-' : ''}${mantissa}p${power >= 0 ? '+' : ''}${power}`;
}

/** Go's fmtX: -0x1.yyyyp±dd, with `precision` hex digits (all needed when negative). */
function formatX(negative: boolean, value: number, bitSize: number, precision: number, upper: boolean): string {
  let { mantissa, exponent } = floatBits(value, bitSize);
  const { mantissaBits } = floatBits(value, bitSize);
  if (mantissa === 0n) exponent = 0;
  const top = 1n << 60n;
  mantissa <<= BigInt(60 - mantissaBits);
  while (mantissa !== 0n && (mantissa & top) === 0n) {
    mantissa <<= 1n;
    exponent--;
  }
  if (precision >= 0 && precision < 15) {
    const shift = BigInt(precision * 4);
    const extra = (mantissa << shift) & (top - 1n);
    mantissa >>= 60n - shift;
    if ((extra | (mantissa & 1n)) > 1n << 59n) mantissa++;
    mantissa <<= 60n - shift;
    if ((mantissa & (1n << 61n)) !== 0n) {
      mantissa >>= 1n;
      exponent++;
    }
  }
  const hex = (digit: bigint) => (upper ? digit.toString(16).toUpperCase() : digit.toString(16));
  let out = `${negative ? '-' : ''}0${upper ? 'X' : 'x'}${(mantissa >> 60n) & 1n}`;
  const mask = (1n << 64n) - 1n;
  mantissa = (mantissa << 4n) & mask;
  if (precision < 0 && mantissa !== 0n) {
    out += '.';
    while (mantissa !== 0n) {
      out += hex((mantissa >> 60n) & 15n);
      mantissa = (mantissa << 4n) & mask;
    }
  } else if (precision > 0) {
    out += '.';
    for (let i = 0; i < precision; i++) {
      out += hex((mantissa >> 60n) & 15n);
      mantissa = (mantissa << 4n) & mask;
    }
  }
  return `${out}${upper ? 'P' : 'p'}${exponentText(exponent, 2)}`;
}

/** The most characters FormatFloat's precision may ask for: past it, the caller refuses the result as too large. */
export const formattedLength = (value: number, precision: number): number => Math.max(precision, 0) + 330 + (value < 0 ? 1 : 0);

/**
 * Go's strconv.FormatFloat(value, format, precision, bitSize): 'e', 'E', 'f', 'g', 'G', 'b', 'x', 'X', with
 * precision digits (-1: the fewest that read back as the same number), ties rounded to even; another format is
 * `%` and its letter, as Go prints it.
 */
export function formatGoFloat(input: number, format: number, precision: number, bitSize: number): string {
  if (bitSize !== 32 && bitSize !== 64) throw new NumberError('strconv: illegal AppendFloat/FormatFloat bitSize');
  const value = bitSize === 32 ? Math.fround(input) : input;
  const letter = String.fromCharCode(format);
  const negative = value < 0 || Object.is(value, -0);
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : negative ? '-Inf' : '+Inf';
  if (letter === 'b') return formatB(negative, value, bitSize);
  if (letter === 'x' || letter === 'X') return formatX(negative, value, bitSize, precision, letter === 'X');
  if (!'eEfgG'.includes(letter)) return `%${letter}`;
  const magnitude = Math.abs(value);
  const shortest = precision < 0;
  let decimal: Digits;
  if (shortest) {
    decimal = shortestDigits(magnitude, bitSize);
    if (letter === 'e' || letter === 'E') precision = Math.max(decimal.digits.length - 1, 0);
    else if (letter === 'f') precision = Math.max(decimal.digits.length - decimal.point, 0);
    else precision = decimal.digits.length;
  } else {
    const exact = exactDigits(magnitude);
    if (letter === 'e' || letter === 'E') decimal = round(exact, precision + 1);
    else if (letter === 'f') decimal = round(exact, exact.point + precision);
    else {
      if (precision === 0) precision = 1;
      decimal = round(exact, precision);
    }
  }
  if (letter === 'e' || letter === 'E') return formatE(negative, decimal, precision, letter);
  if (letter === 'f') return formatF(negative, decimal, precision);
  // %e is used when the exponent is below -4 or not below the precision (6 for the shortest form).
  let limit = precision;
  if (limit > decimal.digits.length && decimal.digits.length >= decimal.point) limit = decimal.digits.length;
  if (shortest) limit = 6;
  const exponent = decimal.point - 1;
  if (exponent < -4 || exponent >= limit) {
    if (precision > decimal.digits.length) precision = decimal.digits.length;
    return formatE(negative, decimal, precision - 1, letter === 'g' ? 'e' : 'E');
  }
  if (precision > decimal.point) precision = decimal.digits.length;
  return formatF(negative, decimal, Math.max(precision - decimal.point, 0));
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const ESCAPES: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/** Go's strconv.Quote (and %q): printable runes as they are, others escaped (\n, \x00, \u00a0, \U000e0001). */
export function goQuote(text: string): string {
  let out = '"';
  for (const character of text) {
    let code = character.codePointAt(0) as number;
    if (character === '"' || character === '\\') out += `\\${character}`;
    else if (PRINTABLE.test(character)) out += character;
    else if (ESCAPES[character]) out += ESCAPES[character];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else {
      if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
      out += code === 0xfffd ? '\ufffd' : code < 0x10000 ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}
