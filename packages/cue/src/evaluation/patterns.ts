/** Pattern constraints (`[=~"^a"]: int`, `...T`): applied to every arc whose label they match, added or still to come. */
import { InvalidRegexp } from '../internal/re2';
import { appended, type Pattern } from './conjuncts';
import { labelMatches, patternMatcher, startOf } from './expressions';
import { bottom, isBottom, type Value } from './values';
import { NO_CONJUNCTS, type Vertex } from './vertex';

export function applyPatterns(vertex: Vertex): void {
  if (vertex.patterns.length > 0 && vertex.unread) vertex.readAll();
  vertex.patternsApplied = true;
  for (const pattern of vertex.patterns) {
    // A label constraint that is itself wrong (`[1 & 2]: string`) is an error of the struct.
    const matcher = patternMatcher(pattern, vertex);
    if (isBottom(matcher) && matcher.code !== 'incomplete') vertex.fail({ ...matcher, at: [startOf(pattern.value)] });
    for (const arc of vertex.arcs.values()) applyPattern(vertex, pattern, arc);
  }
}

export function applyPattern(vertex: Vertex, pattern: Pattern, arc: Vertex): void {
  if ((vertex.isList && !vertex.isStruct) || arc.definition || arc.hidden) return;
  // A label constraint whose pattern RE2 refuses (`[=~"("]: int`) is an error of the struct once a label is matched against it, as CUE reports it.
  const matcher = patternMatcher(pattern, vertex);
  if (matcher.t === 'constraint')
    for (const { pattern: refused } of matcher.bounds) if (refused instanceof InvalidRegexp) return vertex.fail(bottom(`invalid regexp: ${refused.message}`));
  if (!labelMatches(pattern, arc.label, vertex)) return;
  let env = pattern.env;
  if (pattern.alias || pattern.fieldAlias) {
    const vars = new Map<string, Vertex | Value>();
    if (pattern.alias) vars.set(pattern.alias, { t: 'string', v: arc.label });
    if (pattern.fieldAlias) vars.set(pattern.fieldAlias, arc);
    env = { up: pattern.env, vars };
  }
  arc.conjuncts = appended(arc.conjuncts, NO_CONJUNCTS, { expr: pattern.value, env, closed: pattern.closed, origin: pattern.origin });
  if (arc.state === 'done') arc.reset();
}
