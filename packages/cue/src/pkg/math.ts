import type { Value } from '../evaluation/values';
import { DecimalError, isMultipleOf } from '../internal/decimal';
import { CallError, fn, n, pkg } from './builtin';

export const float = (v: number): Value => ({ t: 'num', int: false, v });

export const math = pkg('math', [
  fn('math.Abs', ['number'], ([x]) => Math.abs(n(x))),
  fn('math.Floor', ['number'], ([x]) => Math.floor(n(x)), { returns: 'int' }),
  fn('math.Ceil', ['number'], ([x]) => Math.ceil(n(x)), { returns: 'int' }),
  fn('math.Round', ['number'], ([x]) => Math.sign(n(x)) * Math.round(Math.abs(n(x))), { returns: 'int' }),
  fn('math.Trunc', ['number'], ([x]) => Math.trunc(n(x)), { returns: 'int' }),
  fn('math.Sqrt', ['number'], ([x]) => float(Math.sqrt(n(x)))),
  // Decimal results in CUE (math.Pow, Log, Log10): an int when whole (`math.Pow(2, 3)` is 8), as CUE converts them.
  fn('math.Pow', ['number', 'number'], ([x, y]) => {
    // apd's 0^0 (and 0 to a negative power) is an invalid operation.
    if (n(x) === 0 && n(y) <= 0) throw new CallError('invalid operation');
    const result = n(x) ** n(y);
    // Past what a decimal's exponent holds in CUE (apd): an error there, never 0 or an infinity here.
    if ((result === 0 && n(x) !== 0) || !Number.isFinite(result)) throw new CallError('exponent out of range');
    return result;
  }),
  fn('math.Log', ['number'], ([x]) => Math.log(n(x))),
  fn('math.Log10', ['number'], ([x]) => Math.log10(n(x))),
  fn(
    'math.MultipleOf',
    ['number', 'number'],
    ([x, y]) => {
      try {
        return isMultipleOf(n(x), n(y));
      } catch (error) {
        throw error instanceof DecimalError ? new CallError(error.message) : error;
      }
    },
    { validator: true },
  ),
]);
