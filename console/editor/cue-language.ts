import { StreamLanguage, type StringStream } from '@codemirror/language';

/** The words of CUE's grammar (cuelang.org/docs/reference/spec: keywords, predeclared types, literals). */
const KEYWORDS = new Set(['package', 'import', 'let', 'if', 'for', 'in', 'func']);
const ATOMS = new Set(['true', 'false', 'null']);
const TYPES = new Set([
  'bool',
  'string',
  'bytes',
  'number',
  'int',
  'float',
  'uint',
  'int8',
  'int16',
  'int32',
  'int64',
  'int128',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'uint128',
  'rune',
  'float32',
  'float64',
  'top',
  'len',
  'close',
  'and',
  'or',
  'div',
  'mod',
  'quo',
  'rem',
]);

interface CueState {
  /** Inside a multi-line string or bytes literal: its closing delimiter (`"""`, `'''`, with the `#`s of a raw one). */
  closing: string | null;
}

/** Reads a string literal's body up to `closing`, staying in it across lines. */
function stringBody(stream: StringStream, state: CueState, closing: string): string {
  while (!stream.eol()) {
    if (stream.match(closing)) {
      state.closing = null;
      return 'string';
    }
    if (stream.next() === '\\') stream.next();
  }
  state.closing = closing.length >= 3 && closing.startsWith(closing[0].repeat(3)) ? closing : null;
  return 'string';
}

/** A tokenizer of CUE for CodeMirror's highlighting: comments, strings, numbers, keywords, types, labels, operators. */
export const cueLanguage = StreamLanguage.define<CueState>({
  name: 'cue',
  startState: () => ({ closing: null }),
  token(stream, state) {
    if (state.closing) return stringBody(stream, state, state.closing);
    if (stream.eatSpace()) return null;
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    const raw = stream.match(/^#*/) as RegExpMatchArray | boolean;
    const hashes = Array.isArray(raw) ? raw[0] : '';
    const quote = stream.match(/^("""|'''|"|')/) as RegExpMatchArray | boolean;
    if (Array.isArray(quote)) return stringBody(stream, state, `${quote[0]}${hashes}`);
    if (hashes) {
      // A definition's name (#Owner) or a hash before a word.
      stream.match(/^[\w$]*/);
      return 'typeName';
    }
    if (stream.match(/^(0x[\da-fA-F_]+|0o[0-7_]+|0b[01_]+|(\d[\d_]*)?\.?\d[\d_]*([eE][-+]?\d+)?[KMGTP]?i?)/)) return 'number';
    if (stream.match(/^@[\w$]+/)) return 'meta';
    const word = stream.match(/^[_$a-zA-Z][\w$]*/) as RegExpMatchArray | boolean;
    if (Array.isArray(word)) {
      if (KEYWORDS.has(word[0])) return 'keyword';
      if (ATOMS.has(word[0])) return 'atom';
      if (TYPES.has(word[0])) return 'typeName';
      if (stream.match(/^\s*[?!]?\s*:/, false)) return 'propertyName';
      return 'variableName';
    }
    if (stream.match(/^(=~|!~|==|!=|<=|>=|&&|\|\||\.\.\.|[&|*+\-/<>=!?:])/)) return 'operator';
    if (stream.match(/^[{}[\](),.]/)) return 'punctuation';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '//' } },
});
