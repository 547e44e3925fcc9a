/**
 * CUE's package math/bits (pkg/math/bits/manual.go): bit operations on integers of any size, as Go's math/big
 * does them. Lsh, Rsh, At, Set, And, Or, Xor and Clear see a negative integer in two's complement (an infinite
 * run of ones on the left); OnesCount and Len count the bits of its absolute value. A number is a double in the
 * native evaluator: an integer past 2^53 is exact only when it carries its digits (`literal`), as the results
 * here do.
 */
import type { Context } from '../evaluation/context';
import type { Scalar } from '../evaluation/values';
import { CallError, fn, integerOf, type Param, pkg } from './builtin';

const MAX_UINT64 = (1n << 64n) - 1n;

const MAX_INT64 = (1n << 63n) - 1n;

/** CUE's CallCtxt.Uint: a uint64 argument (`argument` counts from 0, as CUE's message does). */
function uint64(value: bigint, argument: number): bigint {
  if (value < 0n) throw new CallError(`cannot use ${value} (type int) as uint64 in argument ${argument}`);
  if (value > MAX_UINT64) throw new CallError(`int ${value} overflows uint64 in argument ${argument}`);
  return value;
}

/** CUE's CallCtxt.Int: an int64 argument. */
function int64(value: bigint, argument: number): bigint {
  if (value > MAX_INT64 || value < -MAX_INT64 - 1n) throw new CallError(`int ${value} overflows int64 in argument ${argument}`);
  return value;
}

const bitLength = (value: bigint): number => (value < 0n ? -value : value).toString(2).length - (value === 0n ? 1 : 0);

/**
 * Refuses a result of `bits` bits past the native evaluator's output bound before it is built (Go would build
 * it, or run out of memory), counted in the decimal digits it shows as, and charges the steps it takes.
 */
function made(ctx: Context, what: string, bits: bigint): void {
  const characters = Math.ceil(Number(bits) * Math.log10(2));
  ctx.limit(what, characters, 'characters');
  ctx.chargeText(characters);
}

/** The members of math/bits: each takes integers and returns one. */
const BITS: Readonly<Record<string, { readonly arity: number; readonly call: (args: bigint[], ctx: Context) => Scalar }>> = {
  Lsh: {
    arity: 2,
    call: ([x, n], ctx) => {
      const shift = uint64(n, 1);
      if (x === 0n) return integerOf(0n);
      made(ctx, 'bits.Lsh', BigInt(bitLength(x)) + shift);
      return integerOf(x << shift);
    },
  },
  Rsh: {
    arity: 2,
    call: ([x, n]) => {
      const shift = uint64(n, 1);
      // Past its length every bit is its sign's: 0, or -1 for a negative integer (Go's Rsh rounds down).
      return integerOf(shift >= BigInt(bitLength(x)) ? (x < 0n ? -1n : 0n) : x >> shift);
    },
  },
  At: {
    arity: 2,
    call: ([x, i]) => {
      const index = uint64(i, 1);
      if (index > 2147483647n) throw new CallError('bit index too large');
      return integerOf((x >> index) & 1n);
    },
  },
  Set: {
    arity: 3,
    call: ([x, i, b], ctx) => {
      const index = int64(i, 1);
      const bit = uint64(b, 2);
      if (index < 0n) throw new CallError('negative bit index');
      if (bit > 1n) throw new CallError('set bit is not 0 or 1');
      // Past its length every bit is its sign's: setting it to that changes nothing; else it lengthens the integer.
      if (index >= BigInt(bitLength(x)) && (bit === 1n) === x < 0n) return integerOf(x);
      made(ctx, 'bits.Set', index + 1n);
      return integerOf(bit === 1n ? x | (1n << index) : x & ~(1n << index));
    },
  },
  And: { arity: 2, call: ([a, b]) => integerOf(a & b) },
  Or: { arity: 2, call: ([a, b]) => integerOf(a | b) },
  Xor: { arity: 2, call: ([a, b]) => integerOf(a ^ b) },
  Clear: { arity: 2, call: ([a, b]) => integerOf(a & ~b) },
  OnesCount: {
    arity: 1,
    call: ([x]) => {
      let count = 0;
      for (const digit of (x < 0n ? -x : x).toString(2)) if (digit === '1') count++;
      return integerOf(BigInt(count));
    },
  },
  Len: { arity: 1, call: ([x]) => integerOf(BigInt(bitLength(x))) },
};

export const bits = pkg(
  'math/bits',
  Object.entries(BITS).map(([name, member]) =>
    fn(`bits.${name}`, Array<Param>(member.arity).fill('bigint'), (args, from) => member.call(args as bigint[], from.ctx)),
  ),
);
