/**
 * A CUE file made ready to evaluate: parsed, its imports bound, every reference checked against
 * the scopes it is written in, and what the native evaluator does not do detected up front.
 */
import { builtins } from '../evaluation/builtins-registry';
import type { Env } from '../evaluation/conjuncts';
import { declares } from '../evaluation/references';
import type { Package } from '../evaluation/values';
import { BeyondNative } from '../internal/beyond-native';
import { regexpOf } from '../internal/re2';
import type { Clause, Decl, Expr, File, StructLit } from '../syntax/ast';
import { formatPath } from '../syntax/field-paths';
import { parseFile } from '../syntax/parser';
import { CueSyntaxError, type Position } from '../syntax/scanner';

export interface Program {
  readonly lit: StructLit;
  /** The file's scope: its imports. */
  readonly env: Env;
}

/** A problem of the script itself, whatever the data: refused when the policy is saved. */
export class ScriptError extends Error {
  constructor(
    message: string,
    readonly at?: Position,
  ) {
    super(message);
  }
}

/** Something the native evaluator does not do: the reference evaluator evaluates the policy. */
export class Unsupported extends Error {}

const EXPERIMENT = /^@experiment\(/;

export function compileFile(source: string, options: { references?: boolean } = {}): Program {
  let file: File;
  try {
    file = parseFile(source);
  } catch (error) {
    if (error instanceof CueSyntaxError) throw new ScriptError(error.message.replace(/ \(line \d+, column \d+\)$/, ''), error.at);
    throw error;
  }
  const vars = new Map<string, Package>();
  for (const spec of file.imports) {
    const found = builtins().packages.get(spec.path);
    if (!found) {
      if (builtins().standardLibrary.has(spec.path)) throw new Unsupported(`the package "${spec.path}" is not in the native evaluator`);
      throw new ScriptError(`package "${spec.path}" not found`, spec.at);
    }
    vars.set(spec.alias ?? (spec.path.split('/').pop() as string), found);
  }
  if (file.decls.some((decl) => decl.type === 'attribute' && EXPERIMENT.test(decl.text))) throw new Unsupported('the script turns on a CUE experiment');
  const lit: StructLit = { type: 'struct', decls: file.decls, at: { offset: 0, line: 1, column: 1 } };
  // The files of a package see each other's fields: only a single file can be checked on its own.
  if (options.references !== false) {
    const used = checkFile(lit, { names: new Set(vars.keys()), packages: vars });
    // CUE refuses an import no reference reads, whatever the data.
    const unused = file.imports.find((spec) => !used.has(spec.alias ?? (spec.path.split('/').pop() as string)));
    if (unused) throw new ScriptError(`imported and not used: "${unused.path}"${unused.alias ? ` as ${unused.alias}` : ''}`, unused.at);
  }
  return { lit, env: { vars } };
}

type Scope = { readonly lit?: StructLit; readonly names?: ReadonlySet<string>; readonly packages?: ReadonlyMap<string, Package> };

/** The field being checked, for messages (CUE: `size: reference "limit" not found`). */
const fieldPath: string[] = [];

/** A message at the field being checked, as CUE prints it. */
const atField = (message: string): string => (fieldPath.length > 0 ? `${formatPath(fieldPath)}: ${message}` : message);

/** The names each struct literal's lets and aliases are read by (a let or alias never read is an error in CUE). */
let readNames = new Map<StructLit, Set<string>>();

/** The imported packages some reference reads. */
let usedImports = new Set<string>();

/** Lets whose expression is being checked, and lets checked (CUE inlines a let where it is read: one that reaches itself is an error). */
let openLets = new Set<LetDecl>();

let checkedLets = new Set<LetDecl>();
type LetDecl = Extract<Decl, { type: 'let' }>;

function checkLet(decl: LetDecl, scopes: readonly Scope[]): void {
  if (checkedLets.has(decl)) return;
  if (openLets.has(decl)) throw new ScriptError(atField('cyclic references in let clause or alias'), decl.at);
  openLets.add(decl);
  checkExpr(decl.expr, scopes);
  openLets.delete(decl);
  checkedLets.add(decl);
}

function known(name: string, scopes: readonly Scope[]): boolean {
  for (const [index, scope] of scopes.entries()) {
    if (scope.names?.has(name)) {
      if (scope.packages?.has(name)) usedImports.add(name);
      return true;
    }
    if (scope.lit !== undefined && declares(scope.lit, name)) {
      readNames.get(scope.lit)?.add(name);
      const let_ = scope.lit.decls.find((decl): decl is LetDecl => decl.type === 'let' && decl.name === name);
      if (let_) checkLet(let_, scopes.slice(index));
      return true;
    }
  }
  return name === '_' || builtins().predeclared.has(name);
}

/** Every identifier must name something in scope (CUE: `reference "x" not found`); regexps must run here. */
function checkReferences(lit: StructLit, outer: readonly Scope[]): void {
  const scopes = [{ lit }, ...outer];
  checkSelfExtension(lit);
  readNames.set(lit, new Set());
  for (const decl of lit.decls) checkDecl(decl, scopes);
  for (const decl of lit.decls) {
    const name = decl.type === 'let' ? decl.name : decl.type === 'field' ? decl.alias : undefined;
    if (name !== undefined && !readNames.get(lit)?.has(name)) throw new ScriptError(`unreferenced alias or let clause ${name}`, decl.at);
  }
}

/**
 * A comprehension whose condition reads a field of its own struct and whose body adds to that field
 * (`if name == "dev" { name: =~"^d" }`): CUE v0.4 refuses such a script when the field is a
 * disjunction (`cannot add field name: was already used`), which a descriptor or an embedded
 * definition may make it. The reference evaluator judges it, rather than the native one guessing.
 * A presence test (`if owner != _|_ { owner: ... }`) reads no value: both read it alike.
 */
function checkSelfExtension(lit: StructLit): void {
  for (const decl of lit.decls) {
    if (decl.type !== 'comprehension') continue;
    const read = JSON.stringify(
      decl.clauses.filter((clause) => clause.type === 'if'),
      (_, node: { type?: string; op?: string; left?: Expr; right?: Expr }) =>
        node?.type === 'binary' &&
        (node.op === '!=' || node.op === '==') &&
        [node.left, node.right].some((side) => side?.type === 'literal' && side.kind === 'bottom')
          ? undefined
          : node,
    );
    for (const added of decl.body.decls) {
      if (added.type !== 'field' || added.label.kind !== 'name') continue;
      if (read.includes(JSON.stringify({ type: 'ident', name: added.label.name }).slice(0, -1)))
        throw new Unsupported(`a comprehension adds to ${added.label.name}, which its condition reads: CUE v0.4 may refuse that (\`was already used\`)`);
    }
  }
}

/** Checks the references of a file; returns the imports read. */
function checkFile(lit: StructLit, scope: Scope): ReadonlySet<string> {
  readNames = new Map();
  usedImports = new Set();
  openLets = new Set();
  checkedLets = new Set();
  fieldPath.length = 0;
  try {
    checkReferences(lit, [scope]);
    return usedImports;
  } finally {
    readNames = new Map();
  }
}

function checkDecl(decl: Decl, scopes: readonly Scope[]): void {
  switch (decl.type) {
    case 'field':
      if (decl.label.kind === 'pattern') {
        checkExpr(decl.label.expr, scopes);
        checkExpr(decl.value, decl.label.alias ? [{ names: new Set([decl.label.alias]) }, ...scopes] : scopes);
        return;
      }
      if (decl.label.kind !== 'name') checkExpr(decl.label.expr, scopes);
      if (decl.attributes.some((attribute) => EXPERIMENT.test(attribute))) throw new Unsupported('the script turns on a CUE experiment');
      fieldPath.push(decl.label.kind === 'name' ? decl.label.name : '(label)');
      try {
        checkExpr(decl.value, scopes);
      } finally {
        fieldPath.pop();
      }
      return;
    case 'let':
      return checkLet(decl, scopes);
    case 'embed':
      checkExpr(decl.expr, scopes);
      return;
    case 'ellipsis':
      if (decl.constraint) checkExpr(decl.constraint, scopes);
      return;
    case 'comprehension':
      checkClauses(decl.clauses, 0, decl.body, scopes);
      return;
    case 'attribute':
      return;
  }
}

function checkClauses(clauses: readonly Clause[], at: number, body: StructLit, scopes: readonly Scope[]): void {
  if (at === clauses.length) return checkReferences(body, scopes);
  const clause = clauses[at];
  if (clause.type === 'if') {
    checkExpr(clause.condition, scopes);
    return checkClauses(clauses, at + 1, body, scopes);
  }
  checkExpr(clause.type === 'for' ? clause.source : clause.expr, scopes);
  const names = clause.type === 'for' ? [clause.value, ...(clause.key ? [clause.key] : [])] : [clause.name];
  checkClauses(clauses, at + 1, body, [{ names: new Set(names) }, ...scopes]);
}

function checkExpr(expr: Expr, scopes: readonly Scope[]): void {
  switch (expr.type) {
    case 'ident':
      if (!known(expr.name, scopes)) throw new ScriptError(atField(`reference "${expr.name}" not found`), expr.at);
      return;
    case 'literal':
      return;
    case 'interpolation':
      for (const part of expr.parts) if (typeof part !== 'string') checkExpr(part, scopes);
      return;
    case 'selector':
      checkExpr(expr.target, scopes);
      if (expr.target.type === 'ident') {
        const name = expr.target.name;
        const imported = scopes.find((scope) => scope.names?.has(name) || (scope.lit !== undefined && declares(scope.lit, name)))?.packages?.get(name);
        if (imported && !imported.members.has(expr.name)) throw new Unsupported(`${imported.path}.${expr.name} is not in the native evaluator`);
      }
      return;
    case 'index':
      checkExpr(expr.target, scopes);
      checkExpr(expr.index, scopes);
      return;
    case 'slice':
      checkExpr(expr.target, scopes);
      if (expr.low) checkExpr(expr.low, scopes);
      if (expr.high) checkExpr(expr.high, scopes);
      return;
    case 'call':
      checkExpr(expr.callee, scopes);
      for (const arg of expr.args) checkExpr(arg, scopes);
      return;
    case 'unary':
      // CUE's compiler takes a default mark only on an operand of `|` (addDisjunctionElem): `x & *1 | 2` is refused.
      if (expr.op === '*') throw new ScriptError(atField('preference mark not allowed at this position'), expr.at);
      if ((expr.op === '=~' || expr.op === '!~') && expr.operand.type === 'literal' && expr.operand.kind === 'string')
        checkRegexp(expr.operand.value as string);
      checkExpr(expr.operand, scopes);
      return;
    case 'binary':
      if (expr.op === '|') return checkDisjunct(expr, scopes);
      if ((expr.op === '=~' || expr.op === '!~') && expr.right.type === 'literal' && expr.right.kind === 'string') checkRegexp(expr.right.value as string);
      checkExpr(expr.left, scopes);
      checkExpr(expr.right, scopes);
      return;
    case 'paren':
      checkExpr(expr.expr, scopes);
      return;
    case 'alias':
      checkExpr(expr.expr, [{ names: new Set([expr.name]) }, ...scopes]);
      return;
    case 'struct':
      checkReferences(expr, scopes);
      return;
    case 'list':
      for (const element of expr.elements) {
        if (element.type === 'comprehension') checkClauses(element.clauses, 0, element.body, scopes);
        else checkExpr(element, scopes);
      }
      if (expr.rest?.type) checkExpr(expr.rest.type, scopes);
      return;
  }
}

/** An operand of `|`, where a default mark may stand (`*a | b`, `**a | b`), but not inside parentheses or another operator. */
function checkDisjunct(expr: Expr, scopes: readonly Scope[]): void {
  if (expr.type === 'unary' && expr.op === '*') return checkDisjunct(expr.operand, scopes);
  if (expr.type !== 'binary' || expr.op !== '|') return checkExpr(expr, scopes);
  checkDisjunct(expr.left, scopes);
  checkDisjunct(expr.right, scopes);
}

/** A constant pattern only CUE can run sends the policy to the reference evaluator; one RE2 refuses is CUE's error when it matches. */
function checkRegexp(source: string): void {
  try {
    regexpOf(source);
  } catch (error) {
    if (error instanceof BeyondNative) throw new Unsupported(error.message);
    throw error;
  }
}
