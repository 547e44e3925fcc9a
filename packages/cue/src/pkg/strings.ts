import { MAX_REPEAT_COUNT } from '../evaluation/context';
import type { Vertex } from '../evaluation/vertex';
import { mapWordStarts, splitFields, toLower, toLowerRune, toTitleRune, toUpper, trimSpace } from '../internal/unicode';
import { CallError, fn, n, pkg, runes, s } from './builtin';

export const strings = pkg('strings', [
  fn('strings.Contains', ['string', 'string'], ([a, b]) => s(a).includes(s(b)), { validator: true }),
  fn('strings.ContainsAny', ['string', 'string'], ([a, b]) => [...s(b)].some((c) => s(a).includes(c)), { validator: true }),
  fn('strings.HasPrefix', ['string', 'string'], ([a, b]) => s(a).startsWith(s(b)), { validator: true }),
  fn('strings.HasSuffix', ['string', 'string'], ([a, b]) => s(a).endsWith(s(b)), { validator: true }),
  fn('strings.MinRunes', ['string', 'int'], ([a, b]) => runes(s(a)) >= n(b), { validator: true }),
  fn('strings.MaxRunes', ['string', 'int'], ([a, b]) => runes(s(a)) <= n(b), { validator: true }),
  fn(
    'strings.Index',
    ['string', 'string'],
    ([a, b]) => Buffer.byteLength(s(a).slice(0, Math.max(0, s(a).indexOf(s(b))))) * (s(a).includes(s(b)) ? 1 : 0) - (s(a).includes(s(b)) ? 0 : 1),
    { returns: 'int' },
  ),
  fn('strings.LastIndex', ['string', 'string'], ([a, b]) => (s(a).includes(s(b)) ? Buffer.byteLength(s(a).slice(0, s(a).lastIndexOf(s(b)))) : -1), {
    returns: 'int',
  }),
  fn('strings.Count', ['string', 'string'], ([a, b]) => (s(b) === '' ? runes(s(a)) + 1 : s(a).split(s(b)).length - 1), { returns: 'int' }),
  fn('strings.Join', ['strings', 'string'], ([list, sep], from) => {
    const parts = list as string[];
    from.ctx.limit('strings.Join', parts.reduce((sum, part) => sum + part.length, 0) + Math.max(0, parts.length - 1) * s(sep).length, 'characters');
    return parts.join(s(sep));
  }),
  fn('strings.Split', ['string', 'string'], ([a, sep]) => (s(sep) === '' ? [...s(a)] : s(a).split(s(sep)))),
  fn('strings.SplitN', ['string', 'string', 'int'], ([a, sep, count]) => splitN(s(a), s(sep), n(count))),
  fn('strings.Fields', ['string'], ([a]) => splitFields(s(a))),
  fn('strings.Replace', ['string', 'string', 'string', 'int'], ([a, old, replacement, count], from) => replace(s(a), s(old), s(replacement), n(count), from)),
  fn('strings.ToUpper', ['string'], ([a]) => toUpper(s(a))),
  fn('strings.ToLower', ['string'], ([a]) => toLower(s(a))),
  fn('strings.ToTitle', ['string'], ([a]) => mapWordStarts(s(a), toTitleRune)),
  fn('strings.ToCamel', ['string'], ([a]) => mapWordStarts(s(a), toLowerRune)),
  fn('strings.TrimSpace', ['string'], ([a]) => trimSpace(s(a))),
  fn('strings.Trim', ['string', 'string'], ([a, cut]) => trimSet(trimSet(s(a), s(cut), true), s(cut), false)),
  fn('strings.TrimLeft', ['string', 'string'], ([a, cut]) => trimSet(s(a), s(cut), true)),
  fn('strings.TrimRight', ['string', 'string'], ([a, cut]) => trimSet(s(a), s(cut), false)),
  fn('strings.TrimPrefix', ['string', 'string'], ([a, prefix]) => (s(a).startsWith(s(prefix)) ? s(a).slice(s(prefix).length) : s(a))),
  fn('strings.TrimSuffix', ['string', 'string'], ([a, suffix]) => (s(suffix) !== '' && s(a).endsWith(s(suffix)) ? s(a).slice(0, -s(suffix).length) : s(a))),
  fn('strings.Repeat', ['string', 'int'], ([a, count], from) => {
    const times = repeatCount(n(count));
    from.ctx.limit('strings.Repeat', s(a).length * times, 'characters');
    return s(a).repeat(times);
  }),
  fn('strings.SliceRunes', ['string', 'int', 'int'], ([a, start, end]) => {
    const chars = [...s(a)];
    if (n(start) < 0 || n(start) > n(end) || n(end) > chars.length) throw new CallError('index out of range');
    return chars.slice(n(start), n(end)).join('');
  }),
  fn('strings.Runes', ['string'], ([a]) => [...s(a)].map((c) => c.codePointAt(0) as number)),
]);

/** Go's strings.SplitN: at most `count` parts (all when negative), the last the rest; an empty separator splits runes. */
function splitN(text: string, sep: string, count: number): string[] {
  if (count === 0) return [];
  const parts = sep === '' ? [...text] : text.split(sep);
  if (count < 0 || parts.length <= count) return parts;
  return [...parts.slice(0, count - 1), parts.slice(count - 1).join(sep)];
}

/**
 * Go's strings.Replace: the first `count` (all when negative) non-overlapping `old`, left to right; an empty `old`
 * matches before each rune and at the end (runes + 1 times). Refused before it is built when it would be too long.
 */
function replace(text: string, old: string, replacement: string, count: number, from: Vertex): string {
  if (old === replacement || count === 0) return text;
  if (old === '') {
    const chars = [...text];
    const times = count < 0 ? chars.length + 1 : Math.min(count, chars.length + 1);
    from.ctx.limit('strings.Replace', text.length + times * replacement.length, 'characters');
    return replacement + chars.slice(0, times - 1).join(replacement) + (times > 1 ? replacement : '') + chars.slice(times - 1).join('');
  }
  const found = text.split(old).length - 1;
  const times = count < 0 ? found : Math.min(count, found);
  if (times === 0) return text;
  from.ctx.limit('strings.Replace', text.length + times * (replacement.length - old.length), 'characters');
  const parts = text.split(old);
  return parts.slice(0, times + 1).join(replacement) + (times < found ? old + parts.slice(times + 1).join(old) : '');
}

export function repeatCount(count: number): number {
  if (count < 0) throw new CallError('negative count');
  if (count > MAX_REPEAT_COUNT) throw new CallError(`count ${count} exceeds limit of ${MAX_REPEAT_COUNT}`);
  return count;
}

function trimSet(text: string, cut: string, left: boolean): string {
  const set = new Set(cut);
  const chars = [...text];
  if (left) {
    let i = 0;
    while (i < chars.length && set.has(chars[i])) i++;
    return chars.slice(i).join('');
  }
  let j = chars.length;
  while (j > 0 && set.has(chars[j - 1])) j--;
  return chars.slice(0, j).join('');
}
