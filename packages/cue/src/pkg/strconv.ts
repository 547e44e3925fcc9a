import { formatValue, incomplete, isScalar, typeName, type Value } from '../evaluation/values';
import { Vertex } from '../evaluation/vertex';
import { BeyondNative } from '../internal/beyond-native';
import { formatBigInt, formatGoFloat, formattedLength, goQuote, NumberError, parseGoFloat, parseGoInt, parseGoUint } from '../internal/go-numbers';
import { ArgumentError, CallError, fn, integerOf, type Js, n, pkg, s } from './builtin';
import { float } from './math';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A Go strconv or math/big error as CUE reports it: `error in call to strconv.ParseInt: strconv.ParseInt: parsing "x": invalid syntax`. */
function goNumber<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw error instanceof NumberError ? new CallError(error.message) : error;
  }
}

/** FormatFloat's format (pkg/strconv): a string of one byte (`"f"`) or the byte's value (102), as CUE takes it today. */
function formatByte(format: Js, name: string): number {
  const value = format as Value;
  if (value.t === 'string') {
    if (Buffer.byteLength(value.v) !== 1) throw new CallError('expected single character string');
    return value.v.charCodeAt(0);
  }
  if (value.t === 'num' && value.int) {
    if (value.v < 0 || value.v > 255) throw new CallError(`format value ${formatValue(value)} out of range [0, 255]`);
    return value.v;
  }
  if (isScalar(value) || value instanceof Vertex) throw new CallError(`unexpected kind ${typeName(value)}`);
  throw new ArgumentError(incomplete(`error in call to ${name}: non-concrete value ${formatValue(value)}`));
}

export const strconv = pkg('strconv', [
  fn('strconv.Atoi', ['string'], ([text]) => integerOf(goNumber(() => parseGoInt(s(text), 10, 0, 'Atoi')))),
  fn('strconv.ParseInt', ['string', 'int', 'int'], ([text, base, bits]) => integerOf(goNumber(() => parseGoInt(s(text), n(base), n(bits))))),
  fn('strconv.ParseUint', ['string', 'int', 'int'], ([text, base, bits]) => integerOf(goNumber(() => parseGoUint(s(text), n(base), n(bits))))),
  fn('strconv.ParseFloat', ['string', 'int'], ([text, bits]) => float(goNumber(() => parseGoFloat(s(text), n(bits))))),
  fn('strconv.ParseBool', ['string'], ([text]) => {
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s(text))) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s(text))) return false;
    throw new CallError(`strconv.ParseBool: parsing ${goQuote(s(text))}: invalid syntax`);
  }),
  fn('strconv.FormatInt', ['bigint', 'int'], ([value, base]) => goNumber(() => formatBigInt(value as bigint, n(base)))),
  fn('strconv.FormatUint', ['bigint', 'int'], ([value, base]) => goNumber(() => formatBigInt(value as bigint, n(base)))),
  fn('strconv.FormatFloat', ['number', 'any', 'int', 'int'], ([value, format, precision, bits], from) => {
    const letter = formatByte(format, 'strconv.FormatFloat');
    from.ctx.limit('strconv.FormatFloat', formattedLength(n(value), n(precision)), 'characters');
    return goNumber(() => formatGoFloat(n(value), letter, n(precision), n(bits)));
  }),
  fn('strconv.FormatBool', ['bool'], ([value]) => String(value)),
  fn('strconv.Quote', ['string'], ([text]) => {
    // Go escapes what its Unicode tables (13 in v0.4) do not call printable; below U+0800 they have not changed since.
    if (/[\u0800-\uffff]/.test(s(text))) throw new BeyondNative("strconv.Quote of a character past U+07FF is judged by Go's own Unicode tables");
    return goQuote(s(text));
  }),
  // A JSON string: CUE's literal.Unquote reads CUE's string syntax, which takes more (`'a'`, `\U0001F600`, `#"a"#`,
  // refused here: stricter), but not a lone surrogate.
  fn('strconv.Unquote', ['string'], ([text]) => {
    // Quotes at both ends, nothing around them: JSON.parse would take blanks before and after.
    if (!/^".*"$/s.test(s(text))) throw new CallError('invalid syntax');
    let unquoted: unknown;
    try {
      unquoted = JSON.parse(s(text));
    } catch {
      throw new CallError('invalid syntax');
    }
    if (typeof unquoted !== 'string') throw new CallError('invalid syntax');
    if (LONE_SURROGATE.test(unquoted)) throw new CallError('unmatched surrogate pair');
    return unquoted;
  }),
]);
