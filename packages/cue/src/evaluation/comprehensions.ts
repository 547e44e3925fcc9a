/**
 * Comprehensions (spec.md, "Comprehensions"): `for`, `if` and `let` clauses yield their body once
 * per binding, as fields of the enclosing struct or as elements of the enclosing list.
 */
import type { Clause, Comprehension } from '../syntax/ast';
import { type CloseGroup } from './closedness';
import { type Env } from './conjuncts';
import { defaultOf, evalExpr, sourceText, valueOf } from './expressions';
import { noteRead, resolveReference } from './references';
import { BOOL, type Bottom, bottom, formatValue, isBottom, kindOf, LIST, STRUCT, typeName, type Value } from './values';
import { Vertex } from './vertex';

/** The errors of comprehensions that failed (a condition that is an error): the struct keeps its fields beside them (inspect.ts). */
export const comprehensionFailures = new WeakSet<Bottom>();

/**
 * Adds what a comprehension yields to `into`. In a list, `index` is the next element's position
 * and the position after the last yielded element is returned. With `hold`, a comprehension that is
 * incomplete before it yielded anything adds nothing and returns -1: it is tried again once others
 * have added their fields (CUE runs comprehensions as tasks that wait for what they read).
 */
export function addComprehension(
  into: Vertex,
  comp: Comprehension,
  env: Env,
  closed: boolean,
  group: CloseGroup,
  index = 0,
  origin?: object,
  hold = false,
): number {
  let next = index;
  let yielded = false;
  const yieldBody = (scope: Env) => {
    yielded = true;
    if (into.isList && !into.isStruct) into.addElement(next++, comp.body, scope, closed);
    else into.add({ expr: comp.body, env: scope, closed, group, origin });
  };
  const failed = run(comp.clauses, 0, env, into, yieldBody);
  if (failed) {
    if (hold && failed.code === 'incomplete' && !yielded) return -1;
    if (failed.code === 'incomplete') into.tainted = true;
    comprehensionFailures.add(failed);
    into.fail(failed);
  }
  return next;
}

function run(clauses: readonly Clause[], at: number, env: Env, into: Vertex, yieldBody: (scope: Env) => void): Bottom | undefined {
  if (at === clauses.length) {
    yieldBody(env);
    return undefined;
  }
  const clause = clauses[at];
  switch (clause.type) {
    case 'if': {
      // A condition is an operand: a disjunction gives its default (`if enable` with `enable: *true | false`).
      const condition = defaultOf(evalExpr(clause.condition, env, into));
      if (isBottom(condition)) return condition;
      if (condition.t !== 'bool') {
        // Not known yet, unless no value of its kinds is a bool (`if x` with `x: int`): CUE's typeError.
        if ((condition.t === 'top' || condition.t === 'constraint' || condition.t === 'disj') && kindOf(condition) & BOOL)
          return bottom(`incomplete bool: ${formatValue(condition)}`, [clause.at], 'incomplete');
        return bottom(`cannot use ${formatValue(condition)} (type ${typeName(condition)}) as type bool`, [clause.condition.at]);
      }
      return condition.v ? run(clauses, at + 1, env, into, yieldBody) : undefined;
    }
    case 'let': {
      const value = evalExpr(clause.expr, env, into);
      return run(clauses, at + 1, { up: env, vars: new Map([[clause.name, value]]) }, into, yieldBody);
    }
    case 'for': {
      const source = resolveReference(clause.source, env, into);
      // What it ranges over may be descriptor data still to come (`meta: _`): the save check must not settle the result.
      if (source instanceof Vertex) noteRead(source);
      // Ranging over the struct being evaluated (`x: {for k, _ in x {...}}`): over the fields it has so far.
      const value =
        source === into && into.state === 'evaluating' && !into.isList
          ? into.freezeFields()
          : source instanceof Vertex
            ? valueOf(source.resolved())
            : valueOf(source);
      if (isBottom(value)) return value;
      if (!(value instanceof Vertex)) {
        const source = sourceText(clause.source) ?? formatValue(value);
        if ((value.t === 'top' || value.t === 'constraint' || value.t === 'disj') && kindOf(value) & (LIST | STRUCT))
          return bottom(`cannot range over ${source} (incomplete type ${typeName(value)})`, [clause.source.at], 'incomplete');
        return bottom(`cannot range over ${source} (found ${typeName(value)}, want list or struct)`, [clause.source.at]);
      }
      // A required field not given yet is not ranged over: the comprehension is incomplete until it is (CUE's ForClause.yield).
      if (!value.isList)
        for (const arc of value.arcs.values())
          if (arc.required && !arc.regular && !arc.definition && !arc.hidden)
            return bottom(`missing required field in for comprehension: ${arc.label}`, [clause.at], 'incomplete');
      const items: [Value, Vertex][] = value.isList
        ? value.elements().map((element, position) => [{ t: 'num', int: true, v: position }, element])
        : value.regularArcs().map((arc) => [{ t: 'string', v: arc.label }, arc]);
      for (const [key, element] of items) {
        // `_` binds nothing: it stays top in the body (`for _ in [1] {a: _}`).
        const vars = new Map<string, Vertex | Value>();
        if (clause.value !== '_') vars.set(clause.value, element);
        if (clause.key && clause.key !== '_') vars.set(clause.key, key);
        const failed = run(clauses, at + 1, { up: env, vars }, into, yieldBody);
        if (failed) return failed;
      }
      return undefined;
    }
  }
}
