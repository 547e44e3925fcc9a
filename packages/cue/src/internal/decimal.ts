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

/** An operation CUE's decimal context refuses (a division by zero), with apd's words. */
export class DecimalError extends Error {}

/** The significant digits of CUE's decimal context (internal.BaseContext, apd with precision 34). */
const CUE_PRECISION = 34;

/**
 * CUE's math.MultipleOf (pkg/math/manual.go): x / y in CUE's decimal context (34 significant digits, rounded
 * half up) has no fractional part. Exact on the numbers' shortest decimal text, as CUE's decimals are: 0.3 is
 * a multiple of 0.1, 1e-10 is not one of 3. Throws CUE's errors for a zero divisor.
 */
export function isMultipleOf(x: number, y: number): boolean {
  if (y === 0) throw new DecimalError(x === 0 ? 'division undefined' : 'division by zero');
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  const [a, b] = [decimalOf(Math.abs(x)), decimalOf(Math.abs(y))];
  const exponent = Math.min(a.exponent, b.exponent);
  const [dividend, divisor] = [scaled(a, exponent), scaled(b, exponent)];
  const rest = dividend % divisor;
  if (rest === 0n) return true;
  // The quotient is not whole: whether rounding it to CUE's 34 digits drops its fraction (or carries it to 1).
  const whole = dividend / divisor;
  let kept: number;
  if (whole > 0n) {
    const digits = whole.toString().length;
    if (digits >= CUE_PRECISION) return true;
    kept = CUE_PRECISION - digits;
  } else {
    let zeros = 0;
    for (let next = rest * 10n; next < divisor; next *= 10n) zeros++;
    kept = zeros + CUE_PRECISION;
  }
  const scale = 10n ** BigInt(kept);
  const product = rest * scale;
  const fraction = product / divisor + (2n * (product % divisor) >= divisor ? 1n : 0n);
  return fraction === 0n || fraction === scale;
}
