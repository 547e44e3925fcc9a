/**
 * Arithmetic on numbers as CUE does it, in decimal (spec.md, "Numeric values": apd decimals), not
 * in binary floating point: 0.1 + 0.2 is 0.3, so `>0.3` fails it and `<=0.3` holds. Numbers are held
 * as JS numbers; an operation on non-integers of up to 15 digits is computed exactly on their
 * shortest decimal text and the result is the number nearest to it (division to 40 significant
 * digits, past CUE's 34). Longer numbers are already approximations: binary arithmetic serves them.
 */
export type DecimalOp = '+' | '-' | '*' | '/';

interface Decimal {
  readonly digits: bigint;
  readonly exponent: number;
}

/** The exact decimal a number's shortest text stands for (`0.1`, `1.5e+21`, `1e-7`). */
function decimalOf(value: number): Decimal {
  const [mantissa, power = '0'] = String(value).split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  return { digits: BigInt(whole + fraction), exponent: Number(power) - fraction.length };
}

const scaled = (value: Decimal, exponent: number): bigint => value.digits * 10n ** BigInt(value.exponent - exponent);

/** Decimal digits a number holds exactly (a double holds 15 in any case). */
const EXACT_DIGITS = 15;
const significantDigits = (value: Decimal): number => (value.digits < 0n ? -value.digits : value.digits).toString().length;

/** Significant digits of a quotient, beyond CUE's 34: the result is then rounded to a number. */
const QUOTIENT_DIGITS = 40;

const binary = (op: DecimalOp, x: number, y: number): number => (op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y);

export function decimalArithmetic(op: DecimalOp, x: number, y: number): number {
  if (op !== '/' && Number.isSafeInteger(x) && Number.isSafeInteger(y)) {
    const result = binary(op, x, y);
    if (Number.isSafeInteger(result)) return result;
  }
  if (!Number.isFinite(x) || !Number.isFinite(y)) return binary(op, x, y);
  const [a, b] = [decimalOf(x), decimalOf(y)];
  // A number of 16 or 17 digits (2 / 3) already stands for a longer decimal it cannot hold: binary
  // arithmetic is as near to CUE's there (2 / 3 * 6 is 4), and exact decimal arithmetic would not be.
  if (significantDigits(a) > EXACT_DIGITS || significantDigits(b) > EXACT_DIGITS) return binary(op, x, y);
  let result: Decimal;
  if (op === '+' || op === '-') {
    const exponent = Math.min(a.exponent, b.exponent);
    const [left, right] = [scaled(a, exponent), scaled(b, exponent)];
    result = { digits: op === '+' ? left + right : left - right, exponent };
  } else if (op === '*') result = { digits: a.digits * b.digits, exponent: a.exponent + b.exponent };
  else {
    const shift = QUOTIENT_DIGITS + Math.max(0, b.digits.toString().length - a.digits.toString().length);
    result = { digits: (a.digits * 10n ** BigInt(shift)) / b.digits, exponent: a.exponent - b.exponent - shift };
  }
  return Number(`${result.digits}e${result.exponent}`);
}
