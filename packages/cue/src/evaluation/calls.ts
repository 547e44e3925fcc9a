import type { Expr } from '../syntax/ast';
import type { Position } from '../syntax/scanner';
import { type Env } from './conjuncts';
import { evalExpr, startOf, unattached } from './expressions';
import { constraint } from './scalars';
import { type Bottom, bottom, type Builtin, formatValue, isBottom, STRUCT, TOP_KINDS, typeName, type Value } from './values';
import type { Vertex } from './vertex';

export function call(expr: Extract<Expr, { type: 'call' }>, env: Env, from: Vertex): Value {
  const callee = callable(evalExpr(expr.callee, env, from), expr.at);
  if (isBottom(callee)) return callee;
  const args = expr.args.map((arg) => unattached(evalExpr(arg, env, from)));
  return applyBuiltin(callee, args, startOf(expr), from, expr.args.map(startOf));
}

/** What a call calls: a builtin, or the builtin a validator stands for while it was written bare (CUE's CallExpr.evaluate). */
function callable(callee: Value, at: Position): Builtin | Bottom {
  if (isBottom(callee) || callee.t === 'builtin') return callee;
  const validator = callee.t === 'constraint' && callee.bounds.length === 0 && callee.validators.length === 1 ? callee.validators[0] : undefined;
  if (validator?.bare) return validator.bare;
  if (validator) return bottom(`cannot call previously called validator ${validator.text}`, [at]);
  return bottom(`cannot call non-function ${formatValue(callee)} (type ${typeName(callee)})`, [at]);
}

/** A builtin of one argument that validates (`list.UniqueItems`) written bare where a value is wanted: that validator, as if called without arguments. */
export function bareValidator(callee: Builtin, at: Position, from: Vertex): Value {
  const value = applyBuiltin(callee, [], at, from);
  return value.t === 'constraint' ? { ...value, validators: value.validators.map((validator) => ({ ...validator, bare: callee })) } : value;
}

/** A builtin called with all its arguments, or with one fewer as a validator of the value it is unified with. */
function applyBuiltin(callee: Builtin, args: readonly Value[], at: Position, from: Vertex, argAt: readonly Position[] = []): Value {
  const [min, max] = typeof callee.arity === 'number' ? [callee.arity, callee.arity] : callee.arity;
  if (callee.validator && args.length === min - 1) {
    const text = `${callee.name}(${args.map((arg) => formatValue(arg)).join(', ')})`;
    return constraint(
      validatorKinds(callee.name),
      [],
      [
        {
          text,
          name: callee.name,
          args,
          schemas: callee.schemas,
          kinds: validatorKinds(callee.name),
          at: [at, ...argAt],
          check: (value) => asCheck(callee.call([value, ...args], at, from)),
        },
      ],
      [at],
    );
  }
  if (args.length < min) return bottom(`not enough arguments in call to ${callee.name} (have ${args.length}, want ${min})`, [at]);
  if (args.length > max) return bottom(`too many arguments in call to ${callee.name} (have ${args.length}, want ${max})`, [at]);
  return callee.call(args, at, from);
}

function asCheck(result: Value): boolean | Bottom {
  if (result.t === 'bool') return result.v;
  if (isBottom(result)) return result;
  return bottom(`validator returned ${formatValue(result)}`);
}

function validatorKinds(name: string): number {
  if (name === 'matchN' || name === 'matchIf') return TOP_KINDS;
  if (name.startsWith('list.')) return 64;
  if (name.startsWith('struct.')) return STRUCT;
  if (name.startsWith('math.') || name === 'math.MultipleOf') return 12;
  return 48;
}
