import { goQuote } from '../internal/go-numbers';
import { durationError, isRfc3339 } from '../internal/times';
import { CallError, fn, pkg, s } from './builtin';

export const time = pkg('time', [
  fn(
    'time.Time',
    ['string'],
    ([text]) => {
      if (!isRfc3339(s(text))) throw new CallError(`invalid time ${goQuote(s(text))}`);
      return true;
    },
    { validator: true },
  ),
  fn(
    'time.Duration',
    ['string'],
    ([text]) => {
      const error = durationError(s(text));
      if (error) throw new CallError(error);
      return true;
    },
    { validator: true },
  ),
  fn(
    'time.Format',
    ['string', 'string'],
    ([text, layout]) => {
      if (s(layout) !== '2006-01-02T15:04:05Z07:00' && s(layout) !== '2006-01-02T15:04:05.999999999Z07:00')
        throw new CallError(`layout ${JSON.stringify(s(layout))} is not supported by the native evaluator`);
      if (!isRfc3339(s(text))) throw new CallError(`invalid time ${goQuote(s(text))}`);
      return true;
    },
    { validator: true },
  ),
]);
