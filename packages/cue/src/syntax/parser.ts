/**
 * A parser for CUE as the specification defines it (spec.md): package and imports, fields with
 * `?`/`!`, definitions, aliases, `let`, embeddings, pattern constraints, comprehensions, lists with
 * `...T`, interpolation and the full expression grammar with CUE's precedences.
 */
import type { Clause, Comprehension, Decl, Expr, Field, File, Import, Label, ListLit, StructLit } from './ast';
import { CueSyntaxError, type Position, Scanner, type Token } from './scanner';

/** Binary operators and their precedence (spec.md, "Operator precedence"): `|` binds loosest. */
const PRECEDENCE: Record<string, number> = {
  '|': 1,
  '&': 2,
  '||': 3,
  '&&': 4,
  '==': 5,
  '!=': 5,
  '<': 5,
  '<=': 5,
  '>': 5,
  '>=': 5,
  '=~': 5,
  '!~': 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
};

const UNARY = new Set(['+', '-', '!', '*', '<', '<=', '>', '>=', '!=', '==', '=~', '!~']);

export function parseFile(source: string): File {
  return new Parser(new Scanner(source).tokens()).file();
}

/** One expression (the text of an interpolation, a test's expected value). */
export function parseExpression(source: string, at?: Position): Expr {
  const parser = new Parser(new Scanner(source, at).tokens());
  const expr = parser.expression();
  parser.end();
  return expr;
}

class Parser {
  private index = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private get token(): Token {
    return this.tokens[this.index];
  }

  private peekToken(ahead = 1): Token {
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)];
  }

  private is(text: string, kind: Token['kind'] = 'op'): boolean {
    return this.token.kind === kind && this.token.text === text;
  }

  private take(): Token {
    const token = this.token;
    if (token.kind !== 'eof') this.index++;
    return token;
  }

  private fail(message: string, token = this.token): never {
    throw new CueSyntaxError(message, token.at);
  }

  private describe(token: Token): string {
    return token.kind === 'eof' ? "'EOF'" : token.kind === 'comma' && token.implicit ? 'newline' : `'${token.text}'`;
  }

  private expect(text: string): Token {
    if (!this.is(text)) this.fail(`expected '${text}', found ${this.describe(this.token)}`);
    return this.take();
  }

  /** Skips the commas before a closing token. */
  private skipCommas(): void {
    while (this.token.kind === 'comma') this.take();
  }

  end(): void {
    this.skipCommas();
    if (this.token.kind !== 'eof') this.fail(`unexpected ${this.describe(this.token)}`);
  }

  file(): File {
    const decls: Decl[] = [];
    const imports: Import[] = [];
    let packageName: string | undefined;
    this.skipCommas();
    while (this.token.kind === 'attribute') {
      const { text, at } = this.take();
      decls.push({ type: 'attribute', text, at });
      this.skipCommas();
    }
    if (this.is('package', 'keyword')) {
      this.take();
      if (this.token.kind !== 'ident') this.fail('expected a package name');
      packageName = this.take().text;
      this.terminator('}');
    }
    while (this.is('import', 'keyword')) {
      this.take();
      if (this.is('(')) {
        this.take();
        this.skipCommas();
        while (!this.is(')')) {
          imports.push(this.importSpec());
          this.terminator(')');
        }
        this.take();
      } else imports.push(this.importSpec());
      this.terminator('}');
    }
    while (this.token.kind !== 'eof') {
      // A bracket closing nothing: CUE expected the file to end there.
      if (this.token.kind === 'op' && ['}', ']', ')'].includes(this.token.text)) this.fail(`expected 'EOF', found ${this.describe(this.token)}`);
      decls.push(this.declaration());
      this.terminator('}');
    }
    return { packageName, imports, decls };
  }

  private importSpec(): Import {
    const at = this.token.at;
    const alias = this.token.kind === 'ident' ? this.take().text : undefined;
    const path = this.token;
    if (path.kind !== 'string' || path.parts?.length !== 1 || !('text' in path.parts[0])) this.fail('expected an import path');
    this.take();
    return { path: (path.parts[0] as { text: string }).text, alias, at };
  }

  /** After a declaration or element: a comma, or the closing token (or the end). */
  private terminator(closing: string): void {
    if (this.token.kind === 'comma') {
      this.take();
      this.skipCommas();
      return;
    }
    if (this.is(closing) || this.token.kind === 'eof') return;
    this.fail(`missing ',' before ${this.describe(this.token)}`);
  }

  private declaration(): Decl {
    const at = this.token.at;
    // A keyword followed by ':' is a field's label (`let: 1`, `if: true`).
    const colonAt = (ahead: number) => this.peekToken(ahead).kind === 'op' && this.peekToken(ahead).text === ':';
    const marker = this.peekToken().kind === 'op' && ['?', '!'].includes(this.peekToken().text);
    const label = this.token.kind === 'keyword' && (colonAt(1) || (marker && colonAt(2)));
    if (this.token.kind === 'attribute') return { type: 'attribute', text: this.take().text, at };
    if (this.is('...')) {
      this.take();
      const constraint = this.token.kind === 'comma' || this.is('}') ? undefined : this.expression();
      return { type: 'ellipsis', constraint, at };
    }
    if (this.is('let', 'keyword') && !label) {
      this.take();
      const name = this.identifier();
      this.expect('=');
      return { type: 'let', name, expr: this.expression(), at };
    }
    if ((this.is('for', 'keyword') || this.is('if', 'keyword')) && !label) return this.comprehension();
    const fieldOrExpr = this.fieldOrExpression();
    return 'label' in fieldOrExpr ? fieldOrExpr : { type: 'embed', expr: fieldOrExpr, at };
  }

  /** An identifier; keywords serve as identifiers where no keyword is expected (`for _, import in x`). */
  private identifier(): string {
    if (this.token.kind !== 'ident' && this.token.kind !== 'keyword') this.fail(`expected an identifier, found ${this.describe(this.token)}`);
    return this.take().text;
  }

  /** A field (`label: value`, with chains `a: b: 1`) or, when no `:` follows, an expression. */
  private fieldOrExpression(): Field | Expr {
    const at = this.token.at;
    let alias: string | undefined;
    if (this.token.kind === 'ident' && this.peekToken().kind === 'op' && this.peekToken().text === '=') {
      alias = this.take().text;
      this.take();
    }
    const start = this.expression();
    let constraint: '?' | '!' | undefined;
    if ((this.is('?') || this.is('!')) && this.peekToken().kind === 'op' && this.peekToken().text === ':') constraint = this.take().text as '?' | '!';
    if (!this.is(':')) {
      if (constraint) this.fail("expected ':'");
      return alias === undefined ? start : { type: 'alias', name: alias, expr: start, at };
    }
    const label = this.label(start);
    this.take(); // ':'
    const valueAt = this.token.at;
    const value = this.fieldOrExpression();
    const attributes: string[] = [];
    while (this.token.kind === 'attribute') attributes.push(this.take().text);
    const expr: Expr = 'label' in value ? { type: 'struct', decls: [value], at: valueAt } : value;
    return { type: 'field', label, alias, constraint, value: expr, attributes, at };
  }

  /** The label an expression before `:` stands for. */
  private label(expr: Expr): Label {
    switch (expr.type) {
      case 'ident':
        return { kind: 'name', name: expr.name, quoted: false };
      case 'literal':
        if (expr.kind === 'string') return { kind: 'name', name: expr.value as string, quoted: true };
        break;
      case 'interpolation':
        if (!expr.bytes) return { kind: 'interpolated', expr };
        break;
      case 'paren':
        return { kind: 'dynamic', expr: expr.expr };
      case 'list':
        if (expr.elements.length === 1 && !expr.rest && expr.elements[0].type !== 'comprehension') {
          const element = expr.elements[0];
          return element.type === 'alias' ? { kind: 'pattern', expr: element.expr, alias: element.name } : { kind: 'pattern', expr: element };
        }
        break;
    }
    throw new CueSyntaxError('invalid label: expected an identifier, a string, (expression) or [pattern]', expr.at);
  }

  private comprehension(): Comprehension {
    const at = this.token.at;
    const clauses: Clause[] = [];
    for (;;) {
      const clauseAt = this.token.at;
      if (this.is('for', 'keyword')) {
        this.take();
        let value = this.identifier();
        let key: string | undefined;
        if (this.token.kind === 'comma' && !this.token.implicit) {
          this.take();
          key = value;
          value = this.identifier();
        }
        if (!this.is('in', 'keyword')) this.fail(`expected 'in', found ${this.describe(this.token)}`);
        this.take();
        clauses.push({ type: 'for', key, value, source: this.expression(), at: clauseAt });
      } else if (this.is('if', 'keyword')) {
        this.take();
        clauses.push({ type: 'if', condition: this.expression(), at: clauseAt });
      } else if (this.is('let', 'keyword') && clauses.length > 0) {
        this.take();
        const name = this.identifier();
        this.expect('=');
        clauses.push({ type: 'let', name, expr: this.expression(), at: clauseAt });
      } else if (
        this.token.kind === 'comma' &&
        clauses.length > 0 &&
        ['for', 'if', 'let'].includes(this.peekToken().text) &&
        this.peekToken().kind === 'keyword'
      ) {
        this.take();
      } else break;
    }
    if (!this.is('{')) this.fail(`expected '{' after the clauses of a comprehension, found ${this.describe(this.token)}`);
    return { type: 'comprehension', clauses, body: this.struct(), at };
  }

  expression(precedence = 1): Expr {
    let left = this.unary();
    for (;;) {
      const op = this.token.kind === 'op' ? this.token.text : '';
      const level = PRECEDENCE[op];
      if (level === undefined || level < precedence) return left;
      const at = this.take().at;
      const right = this.expression(level + 1);
      left = { type: 'binary', op, left, right, at };
    }
  }

  private unary(): Expr {
    if (this.token.kind === 'op' && UNARY.has(this.token.text)) {
      const { text: op, at } = this.take();
      return { type: 'unary', op, operand: this.unary(), at };
    }
    return this.primary();
  }

  private primary(): Expr {
    let expr = this.operand();
    for (;;) {
      const at = this.token.at;
      if (this.is('.')) {
        this.take();
        const name = this.token;
        if (name.kind === 'ident' || name.kind === 'keyword') expr = { type: 'selector', target: expr, name: this.take().text, at };
        else if (name.kind === 'string' && name.parts?.length === 1 && 'text' in name.parts[0]) {
          this.take();
          expr = { type: 'selector', target: expr, name: name.parts[0].text, at };
        } else this.fail(`expected a selector after '.', found ${this.describe(name)}`);
      } else if (this.is('[')) {
        this.take();
        if (this.is(':')) {
          this.take();
          const high = this.is(']') ? undefined : this.expression();
          this.expect(']');
          expr = { type: 'slice', target: expr, high, at };
          continue;
        }
        const index = this.expression();
        if (this.is(':')) {
          this.take();
          const high = this.is(']') ? undefined : this.expression();
          this.expect(']');
          expr = { type: 'slice', target: expr, low: index, high, at };
        } else {
          this.expect(']');
          expr = { type: 'index', target: expr, index, at };
        }
      } else if (this.is('(')) {
        this.take();
        const args: Expr[] = [];
        this.skipCommas();
        while (!this.is(')')) {
          args.push(this.expression());
          this.terminator(')');
        }
        this.take();
        expr = { type: 'call', callee: expr, args, at };
      } else return expr;
    }
  }

  private operand(): Expr {
    const token = this.token;
    const at = token.at;
    switch (token.kind) {
      case 'int':
      case 'float':
        this.take();
        return { type: 'literal', kind: token.kind, value: token.text, at };
      case 'bottom':
        this.take();
        return { type: 'literal', kind: 'bottom', value: null, at };
      case 'keyword':
        if (token.text === 'true' || token.text === 'false') {
          this.take();
          return { type: 'literal', kind: 'bool', value: token.text === 'true', at };
        }
        if (token.text === 'null') {
          this.take();
          return { type: 'literal', kind: 'null', value: null, at };
        }
        // Keywords are identifiers where no keyword fits (a field named `if`, `for`...).
        this.take();
        return { type: 'ident', name: token.text, at };
      case 'ident':
        this.take();
        return { type: 'ident', name: token.text, at };
      case 'string':
        this.take();
        return this.stringExpr(token);
      case 'op':
        if (token.text === '(') {
          this.take();
          const expr = this.expression();
          this.skipCommas();
          this.expect(')');
          return { type: 'paren', expr, at };
        }
        if (token.text === '{') return this.struct();
        if (token.text === '[') return this.list();
    }
    return this.fail(`expected an expression, found ${this.describe(token)}`);
  }

  private stringExpr(token: Token): Expr {
    const parts = token.parts ?? [];
    if (parts.every((part) => 'text' in part)) {
      const text = parts.map((part) => (part as { text: string }).text).join('');
      return { type: 'literal', kind: token.bytes ? 'bytes' : 'string', value: text, at: token.at };
    }
    return {
      type: 'interpolation',
      bytes: Boolean(token.bytes),
      parts: parts.map((part) => ('text' in part ? part.text : parseExpression(part.source, part.at))),
      at: token.at,
    };
  }

  private struct(): StructLit {
    const at = this.expect('{').at;
    const decls: Decl[] = [];
    this.skipCommas();
    while (!this.is('}')) {
      if (this.token.kind === 'eof') this.fail("expected '}', found 'EOF'");
      decls.push(this.declaration());
      this.terminator('}');
    }
    this.take();
    return { type: 'struct', decls, at };
  }

  private list(): ListLit {
    const at = this.expect('[').at;
    const elements: Array<Expr | Comprehension> = [];
    let rest: ListLit['rest'];
    this.skipCommas();
    while (!this.is(']')) {
      if (this.token.kind === 'eof') this.fail("expected ']', found 'EOF'");
      if (this.is('...')) {
        this.take();
        rest = { type: this.is(']') || this.token.kind === 'comma' ? undefined : this.expression() };
        this.skipCommas();
        if (!this.is(']')) this.fail("the ellipsis must end the list: expected ']'");
        break;
      }
      if (this.is('for', 'keyword') || this.is('if', 'keyword')) elements.push(this.comprehension());
      else {
        const element = this.fieldOrExpression();
        if ('label' in element) throw new CueSyntaxError('a list element cannot be a field', element.at);
        elements.push(element);
      }
      this.terminator(']');
    }
    this.take();
    return { type: 'list', elements, rest, at };
  }
}
