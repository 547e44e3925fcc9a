import { decimalArithmetic, type DecimalOp } from '../internal/decimal';
import { InvalidRegexp, regexpOf } from '../internal/re2';
import type { Expr } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { builtins } from './builtins-registry';
import { type Env } from './conjuncts';
import { MAX_REPEAT_COUNT } from './context';
import { combineDefaults, disjunctsOf } from './disjuncts';
import { defaultOf, evalExpr, sourceText, startOf, structurallyEqual, unattached, valueOf } from './expressions';
import { resolveReference } from './references';
import { constraint, disjunction } from './scalars';
import {
  BOOL,
  type Bottom,
  bottom,
  type Bound,
  boundKinds,
  BYTES,
  compareOrdered,
  formatValue,
  incomplete,
  isBottom,
  isScalar,
  kindName,
  kindOf,
  LIST,
  NULL,
  NUMBER,
  type Scalar,
  scalarEquals,
  STRING,
  TOP_KINDS,
  typeName,
  type Value,
} from './values';
import { Vertex } from './vertex';

/**
 * Whether `x == _|_` holds, as CUE's validate decides it: x is an error, is not concrete (`string`, `_`,
 * a disjunction without default), or is a struct or list with a field below it that is an error other
 * than an incomplete one (CUE makes such a struct an error: `({x: 1} & {x: 3}) == _|_`).
 */
function comparesToBottom(value: Value): boolean {
  const chosen = defaultOf(value);
  if (chosen instanceof Vertex) return finalError(chosen, 0) !== undefined;
  return chosen.t === 'bottom' || chosen.t === 'top' || chosen.t === 'constraint' || chosen.t === 'disj';
}

/** The first error below a struct or list that no more data would resolve (not an incomplete one, nor a cycle). */
function finalError(vertex: Vertex, depth: number): Bottom | undefined {
  for (const arc of vertex.arcs.values()) {
    if (!arc.regular && !arc.required && !arc.notAllowed) continue;
    if (arc.notAllowed) return arc.notAllowed;
    const value = arc.evaluate();
    if (isBottom(value)) {
      if (!isPending(value)) return value;
    } else if (value === arc && depth < arc.ctx.maxDepth) {
      const error = finalError(arc, depth + 1);
      if (error) return error;
    }
  }
  return undefined;
}

const isPending = (error: Bottom): boolean => error.code === 'incomplete' || error.code === 'cycle';
/**
 * What a selection or index is taken from. A struct written in place (`({x: 1, y: 2} & {x: 3}).y`) whose
 * regular field is an error is that error, as in CUE (AddChildError makes a child's error its parent's
 * value). Not an error deeper down, in a hidden field or a field not allowed: CUE reads `.out` of
 * `(#fun & {_in: bad})` (its issue3688) and of a struct with a field not allowed and `out: labstr: bad` (issue837).
 */
export function operandOf(expr: Expr, env: Env, from: Vertex): Vertex | Value {
  const target = resolveReference(expr, env, from);
  let written = expr;
  while (written.type === 'paren') written = written.expr;
  if (!(target instanceof Vertex) || written.type === 'ident' || written.type === 'selector' || written.type === 'index') return target;
  for (const arc of target.arcs.values()) {
    if (!arc.regular || arc.hidden || arc.definition || arc.notAllowed) continue;
    const value = arc.evaluate();
    if (isBottom(value) && !isPending(value)) return value;
  }
  return target;
}

/**
 * A concrete scalar for an operand, or the error saying why not: incomplete while a descriptor
 * could still make it concrete, an error when no value of its kinds would do (`!x` with `x: int`).
 */
export function concrete(value: Value, operand: string, at: Position, kinds = TOP_KINDS): Scalar | Bottom {
  const picked = unattached(defaultOf(value));
  if (isScalar(picked)) return picked;
  if (isBottom(picked)) return picked;
  if (picked instanceof Vertex) return bottom(`invalid operand ${formatValue(picked)} (${operand} requires a scalar)`, [at]);
  const message = `non-concrete value ${formatValue(picked)} in operand to ${operand}`;
  return (kindOf(picked) & kinds) === 0 ? bottom(message, [at]) : incomplete(message, [at]);
}

/** The kinds a bound's operand may have while not concrete (CUE v0.4's BoundExpr). */
function boundOperandKinds(op: string): number {
  return op === '!=' ? NUMBER | STRING | BYTES | NULL : NUMBER | STRING | BYTES;
}

/** The kinds an operator takes. */
function operandKinds(op: string): number {
  switch (op) {
    case '!':
    case '&&':
    case '||':
      return BOOL;
    case '-':
    case '/':
      return NUMBER;
    case '+':
    case '*':
      return NUMBER | STRING | BYTES | LIST;
    case '=~':
    case '!~':
      return STRING | BYTES;
    case '<':
    case '<=':
    case '>':
    case '>=':
      return NUMBER | STRING | BYTES;
    default:
      return TOP_KINDS;
  }
}

export function unary(expr: Extract<Expr, { type: 'unary' }>, env: Env, from: Vertex): Value {
  const { op } = expr;
  if (op === '*') return evalExpr(expr.operand, env, from);
  const operand = evalExpr(expr.operand, env, from);
  if (op === '==') return operand;
  if (op !== '=~' && op !== '!~' && writtenType(expr.operand, operand))
    return bottom(`invalid operand ${formatValue(operand)} ('${op}' requires concrete value)`, [startOf(expr.operand)]);
  const bound = op !== '-' && op !== '+' && op !== '!';
  const value = concrete(operand, op, expr.at, bound ? boundOperandKinds(op) : op === '!' ? BOOL : NUMBER);
  if (bound && isBottom(value) && !isBottom(defaultOf(operand))) {
    // A bound's operand is named as written (CUE's BoundExpr): `>s` with `s: string`; one that can
    // never be a bound's (`>=b` with `b: bool`) is an error even while not concrete, as in CUE v0.4.
    if (value.code === 'incomplete')
      return incomplete(`non-concrete value ${sourceText(expr.operand) ?? formatValue(operand)} for bound ${op}`, [startOf(expr.operand)]);
    const picked = unattached(defaultOf(operand));
    if (!(picked instanceof Vertex))
      return bottom(`invalid value ${formatValue(picked)} (type ${kindName(kindOf(picked))}) for bound ${op}`, [startOf(expr.operand)]);
  }
  if (isBottom(value)) return value;
  if (bound && value.t !== 'num' && value.t !== 'string' && value.t !== 'bytes' && !(op === '!=' && value.t === 'null')) {
    const message = value.t === 'null' ? `cannot use null for bound ${op}` : `invalid value ${formatValue(value)} (type ${typeName(value)}) for bound ${op}`;
    return bottom(message, [startOf(expr.operand)]);
  }
  switch (op) {
    case '-':
    case '+':
      if (value.t !== 'num') return bottom(`invalid operation ${op}${formatValue(value)} (${op} ${typeName(value)})`, [expr.at]);
      if (op === '+') return value;
      return value.literal === undefined
        ? { t: 'num', int: value.int, v: -value.v }
        : { t: 'num', int: value.int, v: -value.v, literal: value.literal.startsWith('-') ? value.literal.slice(1) : `-${value.literal}` };
    case '!':
      if (value.t !== 'bool') return bottom(`invalid operation !${formatValue(value)} (! ${typeName(value)})`, [expr.at]);
      return { t: 'bool', v: !value.v };
    case '=~':
    case '!~': {
      if (value.t !== 'string' && value.t !== 'bytes')
        return bottom(`cannot use ${formatValue(value)} (type ${typeName(value)}) as string in argument to ${op}`, [expr.at]);
      // CUE compiles the pattern when it matches a string: a pattern RE2 refuses is an error there, not here.
      const bound: Bound = { op, value, pattern: regexpOf(value.v), at: expr.at };
      return constraint(boundKinds(bound), [bound], [], [expr.at]);
    }
    default: {
      const bound: Bound = { op: op as Bound['op'], value, at: expr.at };
      return constraint(boundKinds(bound), [bound], [], [expr.at]);
    }
  }
}

/** An operand that is a type or bound as written (`!int`, `-<4`), never concrete (adt.AssertConcreteIsPossible). */
function writtenType(expr: Expr, value: Value): boolean {
  if (expr.type === 'paren') return writtenType(expr.expr, value);
  if (expr.type === 'unary') return expr.op !== '-' && expr.op !== '+' && expr.op !== '!' && expr.op !== '*';
  return expr.type === 'ident' && builtins().predeclared.get(expr.name) === value && value.t === 'constraint';
}

function isBottomLiteral(expr: Expr): boolean {
  return (expr.type === 'literal' && expr.kind === 'bottom') || (expr.type === 'paren' && isBottomLiteral(expr.expr));
}

export function binary(expr: Extract<Expr, { type: 'binary' }>, env: Env, from: Vertex): Value {
  const { op } = expr;
  if (op === '|') {
    // Terms that are disjunctions by value (a reference to one) are flattened by the same rule as written ones.
    const terms = disjunctsOf(expr).map((term) => {
      const value = evalExpr(term.value, env, from);
      return {
        marked: term.isDefault,
        value,
        inner: value.t === 'disj' ? value.values.map((member, index) => ({ value: member, isDefault: value.defaults[index] })) : undefined,
      };
    });
    const members = combineDefaults(terms);
    return disjunction(
      members.map((member) => member.value),
      members.map((member) => member.isDefault),
    );
  }
  if (op === '&') {
    const vertex = new Vertex(from.ctx, from.label, from.parent);
    vertex.addConjunct({ expr, env, closed: false });
    return valueOf(vertex);
  }
  if ((op === '==' || op === '!=') && (isBottomLiteral(expr.left) || isBottomLiteral(expr.right))) {
    const failed = comparesToBottom(evalExpr(isBottomLiteral(expr.left) ? expr.right : expr.left, env, from));
    return { t: 'bool', v: op === '==' ? failed : !failed };
  }
  if (op === '&&' || op === '||') {
    const left = concrete(evalExpr(expr.left, env, from), op, expr.left.at, BOOL);
    if (isBottom(left)) return left;
    if (left.t !== 'bool') return bottom(`invalid operands ${formatValue(left)} to '${op}' (type ${typeName(left)})`, [expr.left.at]);
    const right = concrete(evalExpr(expr.right, env, from), op, expr.right.at, BOOL);
    if (isBottom(right)) return right;
    if (right.t !== 'bool') return bottom(`invalid operands ${formatValue(right)} to '${op}' (type ${typeName(right)})`, [expr.right.at]);
    return { t: 'bool', v: op === '&&' ? left.v && right.v : left.v || right.v };
  }
  const leftValue = defaultOf(evalExpr(expr.left, env, from));
  const rightValue = defaultOf(evalExpr(expr.right, env, from));
  if ((op === '==' || op === '!=') && (leftValue instanceof Vertex || rightValue instanceof Vertex)) {
    if (isBottom(leftValue)) return leftValue;
    if (isBottom(rightValue)) return rightValue;
    // A struct or list compared with a concrete value of another kind (null aside, which compares with anything) is an error, as in CUE.
    const kinds = [leftValue, rightValue].map((value) =>
      value instanceof Vertex ? (value.isList ? 'list' : 'struct') : isScalar(value) ? value.t : undefined,
    );
    if (kinds[0] !== undefined && kinds[1] !== undefined && kinds[0] !== kinds[1] && !kinds.includes('null'))
      return bottom(
        `invalid operands ${formatValue(leftValue)} and ${formatValue(rightValue)} to '${op}' (type ${typeName(leftValue)} and ${typeName(rightValue)})`,
        [expr.left.at, expr.right.at],
      );
    const equal = structurallyEqual(leftValue, rightValue);
    if (equal === undefined) {
      const side = structurallyEqual(leftValue, leftValue) === undefined ? 'left' : 'right';
      return incomplete(`invalid ${side}-hand value to '${op}' (type ${typeName(leftValue)})`, [startOf(expr)]);
    }
    return { t: 'bool', v: op === '==' ? equal : !equal };
  }
  // CUE v0.11 took list arithmetic out of the language (https://cuelang.org/e/v0.11-list-arithmetic).
  if (op === '+' && leftValue instanceof Vertex && rightValue instanceof Vertex && leftValue.isList && rightValue.isList) {
    return bottom('Addition of lists is superseded by list.Concat; see https://cuelang.org/e/v0.11-list-arithmetic', [expr.at]);
  }
  if (op === '*' && (leftValue instanceof Vertex || rightValue instanceof Vertex)) {
    const [list, times] = leftValue instanceof Vertex ? [leftValue, rightValue] : [rightValue as Vertex, leftValue];
    const count = concrete(times, '*', expr.at);
    if (isBottom(count)) return count;
    if (list.isList && count.t === 'num' && count.int)
      return bottom('Multiplication of lists is superseded by list.Repeat; see https://cuelang.org/e/v0.11-list-arithmetic', [expr.at]);
  }
  const left = concrete(leftValue, op, expr.left.at, operandKinds(op));
  const right = concrete(rightValue, op, expr.right.at, operandKinds(op));
  if (isBottom(left)) return left;
  if (isBottom(right)) return right;
  const size = textSize(op, left, right);
  if (size !== undefined) {
    from.ctx.limit(`the operator ${op}`, size, 'characters');
    from.ctx.chargeText(size);
  }
  // A match reads its text once (RE2 is linear in it): charged as the text's length.
  if ((op === '=~' || op === '!~') && (left.t === 'string' || left.t === 'bytes')) from.ctx.chargeText(left.v.length);
  return scalarOperation(op, left, right, expr.left.at, expr.right.at);
}

/** The length of the string or bytes a `+` or `*` makes (a count past CUE's own limit is its error, not this one). */
function textSize(op: string, left: Scalar, right: Scalar): number | undefined {
  const isText = (value: Scalar) => value.t === 'string' || value.t === 'bytes';
  if (op === '+' && isText(left) && left.t === right.t) return (left as { v: string }).v.length + (right as { v: string }).v.length;
  if (op !== '*') return undefined;
  const [text, count] = left.t === 'num' ? [right, left] : [left, right];
  if (!isText(text) || count.t !== 'num' || !count.int || count.v < 0 || count.v > MAX_REPEAT_COUNT) return undefined;
  return (text as { v: string }).v.length * count.v;
}

function invalidOperands(op: string, left: Scalar, right: Scalar, at: Position[]): Value {
  return bottom(`invalid operands ${formatValue(left)} and ${formatValue(right)} to '${op}' (type ${typeName(left)} and ${typeName(right)})`, at);
}

function scalarOperation(op: string, left: Scalar, right: Scalar, leftAt: Position, rightAt: Position): Value {
  const at = [leftAt, rightAt];
  switch (op) {
    case '==':
    case '!=': {
      const comparable = left.t === right.t || (left.t === 'num' && right.t === 'num') || left.t === 'null' || right.t === 'null';
      if (!comparable) return invalidOperands(op, left, right, at);
      const equal = left.t === right.t && scalarEquals(left, right);
      return { t: 'bool', v: op === '==' ? equal : !equal };
    }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const comparable =
        (left.t === 'num' && right.t === 'num') || (left.t === 'string' && right.t === 'string') || (left.t === 'bytes' && right.t === 'bytes');
      if (!comparable) return invalidOperands(op, left, right, at);
      return {
        t: 'bool',
        v: left.t === 'num' && right.t === 'num' ? compareOrdered(op, left, right) : compareOrdered(op, (left as { v: string }).v, (right as { v: string }).v),
      };
    }
    case '=~':
    case '!~': {
      if (right.t !== 'string' && right.t !== 'bytes')
        return bottom(`cannot use ${formatValue(right)} (type ${typeName(right)}) as type ${kindName(STRING | BYTES)}`, at);
      if (left.t !== 'string') return bottom(`cannot use ${formatValue(left)} (type ${typeName(left)}) as type string in ${op}`, at);
      const pattern = regexpOf(right.v);
      if (pattern instanceof InvalidRegexp) return bottom(`invalid regexp: ${pattern.message}`, [leftAt]);
      const matches = pattern.test(left.v);
      return { t: 'bool', v: op === '=~' ? matches : !matches };
    }
    case '+':
      if (left.t === 'string' && right.t === 'string') return { t: 'string', v: left.v + right.v };
      if (left.t === 'bytes' && right.t === 'bytes') return { t: 'bytes', v: left.v + right.v };
      break;
    case '*': {
      const [text, count] = left.t === 'num' ? [right, left] : [left, right];
      if ((text.t === 'string' || text.t === 'bytes') && count.t === 'num' && count.int) return repeatText(text, count.v, at);
      break;
    }
  }
  if (left.t !== 'num' || right.t !== 'num' || !['+', '-', '*', '/'].includes(op)) return invalidOperands(op, left, right, at);
  if (op === '/') {
    if (right.v === 0) return bottom(left.v === 0 ? 'failed arithmetic: division undefined' : 'failed arithmetic: division by zero', [leftAt]);
    return { t: 'num', int: false, v: decimalArithmetic('/', left.v, right.v) };
  }
  return { t: 'num', int: left.int && right.int, v: decimalArithmetic(op as DecimalOp, left.v, right.v) };
}

function repeatText(text: Extract<Scalar, { t: 'string' | 'bytes' }>, count: number, at: Position[]): Value {
  if (count < 0) return bottom('cannot convert negative number to uint64', at);
  if (count > MAX_REPEAT_COUNT)
    return bottom(`${text.t === 'string' ? 'string' : 'bytes'} multiplication count ${count} exceeds limit of ${MAX_REPEAT_COUNT}`, at);
  return { t: text.t, v: text.v.repeat(count) };
}
