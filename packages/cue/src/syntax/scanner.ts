/**
 * The tokens of CUE source as the specification defines them (spec.md, "Lexical elements"):
 * identifiers, keywords, numbers with SI/IEC multipliers, (multi-line, raw, byte) strings with
 * interpolations, operators, attributes and comments, with commas inserted at line ends.
 */
export type TokenKind = 'ident' | 'keyword' | 'int' | 'float' | 'string' | 'bottom' | 'attribute' | 'op' | 'comma' | 'eof';

export interface Position {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** A piece of an interpolated string: literal text, or the source of an embedded expression. */
export type StringPart = { readonly text: string } | { readonly source: string; readonly at: Position };

export interface Token {
  readonly kind: TokenKind;
  /** The source text (identifiers, numbers, operators, attributes). */
  readonly text: string;
  readonly at: Position;
  /** Strings: the decoded parts; `bytes` for single-quoted literals. */
  readonly parts?: readonly StringPart[];
  readonly bytes?: boolean;
  /** A comma the scanner inserted at the end of a line, not one in the source. */
  readonly implicit?: boolean;
}

export class CueSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: Position,
  ) {
    super(`${message} (line ${at.line}, column ${at.column})`);
    this.name = 'CueSyntaxError';
  }
}

const KEYWORDS = new Set(['package', 'import', 'for', 'in', 'if', 'let', 'true', 'false', 'null']);

const OPERATORS = [
  '...',
  '&&',
  '||',
  '==',
  '!=',
  '<=',
  '>=',
  '=~',
  '!~',
  // Not an operator of expressions: CUE's scanner reads `<-` as one token (an arrow no expression takes), so `<-1` is no bound.
  '<-',
  '+',
  '-',
  '*',
  '/',
  '&',
  '|',
  '!',
  '<',
  '>',
  '=',
  ':',
  '.',
  '?',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];

/** After these, a line end is a comma (spec.md, "Commas"). */
const ENDS_LINE = (token: Token) =>
  ['ident', 'keyword', 'int', 'float', 'string', 'bottom', 'attribute'].includes(token.kind) ||
  (token.kind === 'op' && [')', ']', '}', '?', '...'].includes(token.text));

const isLetter = (ch: string) => /[\p{L}_$]/u.test(ch);

const isDigit = (ch: string) => ch >= '0' && ch <= '9';

export class Scanner {
  private offset = 0;
  private line = 1;
  private column = 1;
  /** Where `source` begins in the text it was taken from (an interpolation's expression). */
  private readonly base: number = 0;
  private readonly end: number;

  constructor(
    private readonly source: string,
    start?: Position,
  ) {
    this.end = source.length;
    if (start) ({ offset: this.base, line: this.line, column: this.column } = start);
  }

  /**
   * As CUE reads a policy through the platform (cue/scanner, proven in tests/unit/cue-native-differential.test.ts):
   * NUL is an illegal character anywhere, and so is a byte order mark, in a string, a comment or
   * between tokens; also as the policy's first character, which is not its file's first there.
   */
  private refuseIllegalCharacters(): void {
    if (this.base > 0) return;
    for (let index = this.offset; index < this.end; index++) {
      const ch = this.source[index];
      if (ch !== '\0' && ch !== '\ufeff') continue;
      const before = this.source.slice(0, index).split('\n');
      this.fail(ch === '\0' ? 'illegal character NUL' : 'illegal byte order mark', {
        offset: index,
        line: before.length,
        column: (before.at(-1)?.length ?? 0) + 1,
      });
    }
  }

  private position(): Position {
    return { offset: this.base + this.offset, line: this.line, column: this.column };
  }

  private peek(ahead = 0): string {
    return this.offset + ahead < this.end ? this.source[this.offset + ahead] : '';
  }

  private advance(count = 1): string {
    let taken = '';
    for (let i = 0; i < count && this.offset < this.end; i++) {
      const ch = this.source[this.offset++];
      taken += ch;
      if (ch === '\n') {
        this.line++;
        this.column = 1;
      } else this.column++;
    }
    return taken;
  }

  private fail(message: string, at = this.position()): never {
    throw new CueSyntaxError(message, at);
  }

  /** Every token of the source, with the commas the line ends stand for, and a final `eof`. */
  tokens(): Token[] {
    this.refuseIllegalCharacters();
    const out: Token[] = [];
    for (;;) {
      const newline = this.skipSpace();
      const last = out.at(-1);
      if (newline && last && ENDS_LINE(last)) out.push({ kind: 'comma', text: ',', at: this.position(), implicit: true });
      if (this.offset >= this.end) {
        const tail = out.at(-1);
        if (tail && ENDS_LINE(tail)) out.push({ kind: 'comma', text: ',', at: this.position(), implicit: true });
        out.push({ kind: 'eof', text: '', at: this.position() });
        return out;
      }
      out.push(this.next());
    }
  }

  /** Skips spaces and comments; whether a line ended meanwhile. */
  private skipSpace(): boolean {
    let newline = false;
    for (;;) {
      const ch = this.peek();
      if (ch === '\n') {
        newline = true;
        this.advance();
      } else if (ch === ' ' || ch === '\t' || ch === '\r') this.advance();
      else if (ch === '/' && this.peek(1) === '/') {
        while (this.offset < this.end && this.peek() !== '\n') this.advance();
      } else return newline;
    }
  }

  private next(): Token {
    const at = this.position();
    const ch = this.peek();
    if (ch === ',') return { kind: 'comma', text: this.advance(), at };
    if (ch === '_' && this.peek(1) === '|' && this.peek(2) === '_') return { kind: 'bottom', text: this.advance(3), at };
    if (ch === '@') return this.attribute(at);
    if (ch === '"' || ch === "'") return this.string(at, 0);
    if (ch === '#') {
      let hashes = 0;
      while (this.peek(hashes) === '#') hashes++;
      if (this.peek(hashes) === '"' || this.peek(hashes) === "'") {
        this.advance(hashes);
        return this.string(at, hashes);
      }
    }
    if (ch === '`') {
      this.advance();
      let name = '';
      while (this.peek() !== '`') {
        if (this.offset >= this.end || this.peek() === '\n') this.fail('quoted identifier not terminated', at);
        name += this.advance();
      }
      this.advance();
      return { kind: 'ident', text: name, at };
    }
    if (isLetter(ch) || ch === '#') return this.identifier(at);
    if (isDigit(ch) || (ch === '.' && isDigit(this.peek(1)))) return this.number(at);
    for (const op of OPERATORS) {
      if (this.source.startsWith(op, this.offset)) return { kind: 'op', text: this.advance(op.length), at };
    }
    return this.fail(`unexpected character ${JSON.stringify(ch)}`, at);
  }

  private identifier(at: Position): Token {
    let text = '';
    if (this.peek() === '_' && this.peek(1) === '#') text += this.advance(2);
    else if (this.peek() === '#') text += this.advance();
    while (isLetter(this.peek()) || isDigit(this.peek())) text += this.advance();
    if (text === '#' || text === '_#') this.fail('expected an identifier after #', at);
    return { kind: KEYWORDS.has(text) ? 'keyword' : 'ident', text, at };
  }

  private number(at: Position): Token {
    const start = this.offset;
    const digits = (test: (ch: string) => boolean) => {
      while (test(this.peek()) || (this.peek() === '_' && test(this.peek(1)))) this.advance();
    };
    // `0X` in either case, `0b` and `0o` only in lower case, as CUE's scanner reads them.
    if (this.peek() === '0' && /[xXob]/.test(this.peek(1))) {
      const base = this.advance(2)[1].toLowerCase();
      const test = base === 'x' ? (c: string) => /[0-9a-fA-F]/.test(c) : base === 'o' ? (c: string) => /[0-7]/.test(c) : (c: string) => c === '0' || c === '1';
      digits(test);
      if (this.offset === start + 2) this.fail('number has no digits', at);
      return { kind: 'int', text: this.source.slice(start, this.offset), at };
    }
    let float = false;
    // After a leading 0 only a fraction or an exponent may follow digits: `0777` and `08` are illegal, as in CUE.
    const zeroThenDigits = this.peek() === '0' && isDigit(this.peek(1));
    if (this.peek() === '0' && !zeroThenDigits) this.advance();
    else digits(isDigit);
    if (zeroThenDigits && !(this.peek() === '.' && this.peek(1) !== '.') && !/[eE]/.test(this.peek())) this.fail('illegal integer number', at);
    if (this.peek() === '.' && this.peek(1) !== '.') {
      float = true;
      this.advance();
      digits(isDigit);
    }
    if (/[KMGTP]/.test(this.peek())) {
      this.advance();
      if (this.peek() === 'i') this.advance();
      return { kind: 'int', text: this.source.slice(start, this.offset), at };
    }
    if (/[eE]/.test(this.peek()) && (isDigit(this.peek(1)) || (/[+-]/.test(this.peek(1)) && isDigit(this.peek(2))))) {
      float = true;
      this.advance(2);
      digits(isDigit);
    }
    return { kind: float ? 'float' : 'int', text: this.source.slice(start, this.offset), at };
  }

  private attribute(at: Position): Token {
    this.advance();
    let text = '@';
    while (isLetter(this.peek()) || isDigit(this.peek())) text += this.advance();
    if (this.peek() !== '(') this.fail('expected ( after the attribute name', at);
    let depth = 0;
    do {
      const ch = this.peek();
      if (!ch) this.fail('attribute not terminated', at);
      if (ch === '"' || ch === "'") {
        // Kept as written: attributes are read by whoever asks for them (@test by the conformance runner).
        const quote = this.source.startsWith(ch.repeat(3), this.offset) ? ch.repeat(3) : ch;
        text += this.advance(quote.length);
        while (!this.source.startsWith(quote, this.offset)) {
          if (!this.peek() || (quote.length === 1 && this.peek() === '\n')) this.fail('string in attribute not terminated', at);
          if (this.peek() === '\\') text += this.advance();
          text += this.advance();
        }
        text += this.advance(quote.length);
        continue;
      }
      if (ch === '(') depth++;
      if (ch === ')') depth--;
      // CUE scans an attribute's body as tokens: a character no token or blank is made of is illegal there too.
      if (!ATTRIBUTE_CHARACTER.test(ch)) this.fail(`illegal character U+${(ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`);
      text += this.advance();
    } while (depth > 0);
    return { kind: 'attribute', text, at };
  }

  /** A string after its leading `#`s: "…", '…', """…""", '''…''', with escapes `\` + the hashes. */
  private string(at: Position, hashes: number): Token {
    const quote = this.peek();
    const multi = this.source.startsWith(quote.repeat(3), this.offset);
    const delimiter = (multi ? quote.repeat(3) : quote) + '#'.repeat(hashes);
    // CUE v0.4 reads `#""` as an empty string that its hashes must close at once (`#""#`): a raw string
    // whose text starts with its own quote (`#""a""#`, `#''a''#`) is not terminated there (proven in
    // tests/unit/cue-native-differential.test.ts; later CUE reads it).
    if (hashes > 0 && !multi && this.peek(1) === quote && !this.source.startsWith(quote.repeat(2) + '#'.repeat(hashes), this.offset)) {
      this.fail('string literal not terminated', at);
    }
    this.advance(multi ? 3 : 1);
    if (multi) {
      if (this.peek() === '\r') this.advance();
      if (this.peek() !== '\n') this.fail('a multi-line string must start with a new line', at);
      this.advance();
    }
    const escape = `\\${'#'.repeat(hashes)}`;
    const parts: StringPart[] = [];
    let text = '';
    for (;;) {
      if (this.offset >= this.end) this.fail('string literal not terminated', at);
      if (!multi && this.peek() === '\n') this.fail('string literal not terminated', at);
      // A carriage return is no character of a one-line string (CUE: `invalid string: invalid syntax`).
      if (!multi && this.peek() === '\r') this.fail('invalid string: invalid syntax', at);
      if (this.source.startsWith(delimiter, this.offset)) {
        this.advance(delimiter.length);
        break;
      }
      if (this.source.startsWith(escape, this.offset)) {
        this.advance(escape.length);
        const kind = this.peek();
        if (kind === '(') {
          if (text) parts.push({ text });
          text = '';
          this.advance();
          const start = this.position();
          this.skipInterpolation(at);
          parts.push({ source: this.source.slice(start.offset - this.base, this.offset), at: start });
          this.advance(); // the closing paren
        } else {
          const decoded = this.escaped(quote, at);
          // A byte escape in a string is a character only below 0x80, as CUE v0.4 reads it (`"\xc3\xa9"` is refused).
          if (typeof decoded === 'number' && decoded >= 0x80 && quote === '"') this.fail('invalid string: invalid syntax', at);
          text += typeof decoded === 'number' ? String.fromCharCode(decoded) : decoded;
        }
        continue;
      }
      text += this.advance();
    }
    // A surrogate escaped alone (`\ud800`) is no character: CUE's literal.Unquote refuses it.
    if (parts.some((part) => 'text' in part && LONE_SURROGATE.test(part.text)) || LONE_SURROGATE.test(text))
      this.fail('invalid string: unmatched surrogate pair', at);
    if (text || parts.length === 0) parts.push({ text });
    return { kind: 'string', text: this.source.slice(at.offset - this.base, this.offset), at, parts: multi ? dedent(parts, at) : parts, bytes: quote === "'" };
  }

  /** Moves to the paren that closes an interpolation, past nested parens and strings. */
  private skipInterpolation(at: Position): void {
    let depth = 0;
    for (;;) {
      const ch = this.peek();
      if (!ch) this.fail('interpolation not terminated', at);
      if (ch === ')' && depth === 0) return;
      if (ch === '(') depth++;
      if (ch === ')') depth--;
      if (ch === '"' || ch === "'" || ch === '#') {
        let hashes = 0;
        while (this.peek(hashes) === '#') hashes++;
        if (this.peek(hashes) === '"' || this.peek(hashes) === "'") {
          this.advance(hashes);
          this.string(this.position(), hashes);
          continue;
        }
      }
      this.advance();
    }
  }

  /** An escape's character, or for `\x` and octal escapes its byte. */
  private escaped(quote: string, at: Position): string | number {
    const ch = this.advance();
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '/': '/', '"': '"', "'": "'" };
    if (ch in simple) {
      if ((ch === '"' && quote === "'") || (ch === "'" && quote === '"')) this.fail(`unknown escape sequence \\${ch}`, at);
      return simple[ch];
    }
    const hex = (count: number) => {
      const digits = this.advance(count);
      if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== count) this.fail('invalid escape sequence', at);
      return parseInt(digits, 16);
    };
    if (ch === 'u') return String.fromCharCode(hex(4));
    if (ch === 'U') {
      const point = hex(8);
      if (point > 0x10ffff) this.fail('escape sequence is invalid Unicode code point', at);
      return point >= 0xd800 && point <= 0xdfff ? String.fromCharCode(point) : String.fromCodePoint(point);
    }
    if (ch === 'x') return hex(2);
    if (ch >= '0' && ch <= '7') {
      const digits = ch + this.advance(2);
      if (!/^[0-7]{3}$/.test(digits)) this.fail('invalid octal escape', at);
      return parseInt(digits, 8);
    }
    return this.fail(`unknown escape sequence \\${ch}`, at);
  }
}

/** What an attribute's body may hold outside its strings: ASCII that is printable or blank, letters and digits. */
const ATTRIBUTE_CHARACTER = /^[\t\n\r\x20-\x7e\p{L}\p{Nd}]$/u;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A multi-line string without its last line's indentation, which every line must start with,
 * and without the final new line (spec.md, "String and byte sequence literals").
 */
function dedent(parts: StringPart[], at: Position): StringPart[] {
  const last = parts.at(-1);
  const tail = last && 'text' in last ? last.text : '';
  const indent = /\n([ \t]*)$/.exec(tail)?.[1] ?? (parts.length === 1 && /^[ \t]*$/.test(tail) ? tail : undefined);
  if (indent === undefined) throw new CueSyntaxError('the closing quotes of a multi-line string must be on their own line', at);
  const result: StringPart[] = [];
  let atLineStart = true;
  parts.forEach((part, index) => {
    if (!('text' in part)) {
      result.push(part);
      atLineStart = false;
      return;
    }
    let text = index === parts.length - 1 ? part.text.slice(0, part.text.length - indent.length).replace(/\n$/, '') : part.text;
    const lines = text.split('\n');
    text = lines
      .map((line, i) => {
        if (i === 0 && !atLineStart) return line;
        if (line === '' || line.startsWith(indent)) return line.slice(Math.min(indent.length, line.length));
        throw new CueSyntaxError('a line of a multi-line string is indented less than its closing quotes', at);
      })
      .join('\n');
    atLineStart = text.endsWith('\n');
    result.push({ text });
  });
  return result;
}
