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
  fn('math.Pow', ['number', 'number'], ([x, y]) => float(n(x) ** n(y))),
  fn('math.Log', ['number'], ([x]) => float(Math.log(n(x)))),
  fn('math.Log10', ['number'], ([x]) => float(Math.log10(n(x)))),
  fn('math.Max', ['number', 'number'], ([x, y]) => float(Math.max(n(x), n(y)))),
  fn('math.Min', ['number', 'number'], ([x, y]) => float(Math.min(n(x), n(y)))),
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
