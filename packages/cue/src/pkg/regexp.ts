import { bottom, validationError, type Value } from '../evaluation/values';
import type { Vertex } from '../evaluation/vertex';
import { fromJson } from '../export/encodings';
import { InvalidRegexp, quoteMeta, type Regexp, regexpOf } from '../internal/re2';
import { CallError, fn, type Js, n, pkg, s } from './builtin';

/** A pattern as Go's regexp.Compile gives it: RE2's refusal is the call's error (`error in call to regexp.Find: error parsing regexp: ...`). */
function compiledPattern(pattern: Js): Regexp {
  const compiled = regexpOf(s(pattern));
  if (compiled instanceof InvalidRegexp) throw new CallError(compiled.message);
  return compiled;
}

/** CUE's regexp package: nothing matched is the call's error. */
function matched<T>(result: T | undefined): T {
  if (result === undefined) throw new CallError('no match');
  return result;
}

/** A match's named groups as a struct, its fields in order as CUE turns a Go map into a struct. */
function namedGroups(groups: Record<string, string>, from: Vertex): Value {
  const sorted = Object.fromEntries(Object.entries(groups).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return fromJson(JSON.stringify(sorted), from) ?? bottom('unexpected builtin result');
}

export const regexp = pkg('regexp', [
  fn('regexp.Match', ['string', 'string'], ([pattern, text]) => compiledPattern(pattern).test(s(text))),
  fn(
    'regexp.Valid',
    ['string'],
    // Valid returns Compile's error (pkg/regexp): the reason the validator gives, or the call's error.
    ([pattern], _from, at) => {
      const compiled = regexpOf(s(pattern));
      return compiled instanceof InvalidRegexp ? { ...validationError(`error in call to regexp.Valid: ${compiled.message}`), at: [at] } : true;
    },
    { validator: true },
  ),
  fn('regexp.Find', ['string', 'string'], ([pattern, text]) => matched(compiledPattern(pattern).find(s(text)))),
  fn('regexp.FindAll', ['string', 'string', 'int'], ([pattern, text, count]) => matched(compiledPattern(pattern).findAll(s(text), n(count)))),
  fn('regexp.FindSubmatch', ['string', 'string'], ([pattern, text]) => matched(compiledPattern(pattern).findSubmatch(s(text)))),
  fn('regexp.FindAllSubmatch', ['string', 'string', 'int'], ([pattern, text, count]) => matched(compiledPattern(pattern).findAllSubmatch(s(text), n(count)))),
  fn('regexp.FindNamedSubmatch', ['string', 'string'], ([pattern, text], from) => {
    const compiled = compiledPattern(pattern);
    return namedGroups(compiled.named(matched(compiled.findSubmatch(s(text)))), from);
  }),
  fn('regexp.FindAllNamedSubmatch', ['string', 'string', 'int'], ([pattern, text, count], from) => {
    const compiled = compiledPattern(pattern);
    return matched(compiled.findAllSubmatch(s(text), n(count))).map((groups) => namedGroups(compiled.named(groups), from));
  }),
  fn('regexp.ReplaceAll', ['string', 'string', 'string'], ([pattern, text, replacement], from) =>
    compiledPattern(pattern).replaceAll(s(text), s(replacement), (length) => from.ctx.limit('regexp.ReplaceAll', length, 'characters')),
  ),
  fn('regexp.ReplaceAllLiteral', ['string', 'string', 'string'], ([pattern, text, replacement], from) =>
    compiledPattern(pattern).replaceAllLiteral(s(text), s(replacement), (length) => from.ctx.limit('regexp.ReplaceAllLiteral', length, 'characters')),
  ),
  fn('regexp.QuoteMeta', ['string'], ([text]) => quoteMeta(s(text))),
]);
