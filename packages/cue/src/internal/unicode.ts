/**
 * Go's package unicode as CUE's strings builtins use it (pkg/strings calls Go's strings and unicode):
 * simple, rune by rune, case mapping (unicode.ToUpper, ToLower, ToTitle), and unicode.IsSpace. JavaScript's
 * toUpperCase and toLowerCase use the full mappings of SpecialCasing.txt (`ß` to `SS`) and a context (a final
 * sigma); its `\s` is another set of white space (U+FEFF, not U+0085).
 */

import { BeyondNative } from './beyond-native';

/** unicode.IsSpace: the Latin-1 spaces and U+0085, U+00A0, then the White_Space property. */
const SPACES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
  0x2029, 0x202f, 0x205f, 0x3000,
]);

const isSpace = (codePoint: number): boolean => SPACES.has(codePoint);

const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const LEADING_SPACE = new RegExp(`^[${GO_SPACE}]+`);
const TRAILING_SPACE = new RegExp(`[${GO_SPACE}]+$`);

const SPACE_RUNS = new RegExp(`[${GO_SPACE}]+`);

/** strings.TrimSpace. */
export const trimSpace = (text: string): string => text.replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '');

/** strings.Fields: the runs of what is not white space. */
export const splitFields = (text: string): string[] => text.split(SPACE_RUNS).filter((field) => field !== '');

/**
 * Simple upper case mappings of the letters whose full one (toUpperCase) has several code points: Greek with
 * ypogegrammeni to its titlecase letter; the others (ß, ŉ, ǰ, ligatures, Greek with accents) have none.
 */
function simpleUpperOfSpecial(codePoint: number): number {
  if ((codePoint >= 0x1f80 && codePoint <= 0x1f87) || (codePoint >= 0x1f90 && codePoint <= 0x1f97) || (codePoint >= 0x1fa0 && codePoint <= 0x1fa7))
    return codePoint + 8;
  if (codePoint === 0x1fb3 || codePoint === 0x1fc3 || codePoint === 0x1ff3) return codePoint + 9;
  return codePoint;
}

const single = (text: string): number | undefined => {
  const first = text.codePointAt(0);
  return first !== undefined && text.length === (first > 0xffff ? 2 : 1) ? first : undefined;
};

/** unicode.ToUpper. */
function toUpperRune(codePoint: number): number {
  if (codePoint < 0x80) return codePoint >= 0x61 && codePoint <= 0x7a ? codePoint - 32 : codePoint;
  return single(String.fromCodePoint(codePoint).toUpperCase()) ?? simpleUpperOfSpecial(codePoint);
}

/** unicode.ToLower: `İ` (U+0130) is `i`, its only full lower case mapping of several code points. */
export function toLowerRune(codePoint: number): number {
  if (codePoint < 0x80) return codePoint >= 0x41 && codePoint <= 0x5a ? codePoint + 32 : codePoint;
  return single(String.fromCodePoint(codePoint).toLowerCase()) ?? (codePoint === 0x130 ? 0x69 : codePoint);
}

/** unicode.ToTitle: the upper case but for the digraphs (`ǆ` is `ǅ`) and Georgian Mkhedruli (its own title case). */
export function toTitleRune(codePoint: number): number {
  if (codePoint >= 0x1c4 && codePoint <= 0x1cc) return codePoint - ((codePoint - 0x1c4) % 3) + 1;
  if (codePoint >= 0x1f1 && codePoint <= 0x1f3) return 0x1f2;
  if ((codePoint >= 0x10d0 && codePoint <= 0x10fa) || (codePoint >= 0x10fd && codePoint <= 0x10ff)) return codePoint;
  return toUpperRune(codePoint);
}

/** Only ASCII: no rune whose case maps differ from JavaScript's. */
const isAscii = (text: string): boolean => !/[\u0080-\uffff]/.test(text);

/**
 * Letters Unicode paired with a case after 12.0, the tables of CUE v0.4's Go (Latin Extended-D from
 * U+A7C0, Glagolitic U+2C2F and U+2C5F, Cyrillic U+1C89-U+1C8A, Vithkuqi, Garay, `ƛ`, `ɤ`): Go leaves them as they are.
 */
const NEWER_CASE = /[\u019b\u0264\u1c89\u1c8a\u2c2f\u2c5f\ua7c0-\ua7ff\u{10570}-\u{105bf}\u{10d40}-\u{10d8f}]/u;

/** A rune mapped; one whose mapping is newer than CUE's tables is CUE's to judge (BeyondNative). */
function mapped(character: string, mapping: (codePoint: number) => number): string {
  const codePoint = character.codePointAt(0) as number;
  const result = mapping(codePoint);
  if (result !== codePoint && NEWER_CASE.test(character))
    throw new BeyondNative(`the case of U+${codePoint.toString(16).toUpperCase()} is newer than CUE's Unicode tables`);
  return String.fromCodePoint(result);
}

/** strings.Map of a rune mapping. */
function mapRunes(text: string, mapping: (codePoint: number) => number): string {
  let out = '';
  for (const character of text) out += mapped(character, mapping);
  return out;
}

/** strings.ToUpper. */
export const toUpper = (text: string): string => (isAscii(text) ? text.toUpperCase() : mapRunes(text, toUpperRune));

/** strings.ToLower. */
export const toLower = (text: string): string => (isAscii(text) ? text.toLowerCase() : mapRunes(text, toLowerRune));

/** CUE's strings.ToTitle and ToCamel: each rune that begins a word (the first, or one after white space) mapped. */
export function mapWordStarts(text: string, mapping: (codePoint: number) => number): string {
  let out = '';
  let previous = 0x20;
  for (const character of text) {
    const codePoint = character.codePointAt(0) as number;
    out += isSpace(previous) ? mapped(character, mapping) : character;
    previous = codePoint;
  }
  return out;
}
