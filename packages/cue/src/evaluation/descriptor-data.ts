/**
 * A descriptor's JSON unified into a vertex as CUE reads a .json file: an object's fields become arcs only when
 * something reaches them (the vertex's `unread`), as most fields of a descriptor no rule reads are never more than data.
 */
import { dataConjunct } from './conjuncts';
import { matchedCharacters, unifyScalars } from './scalars';
import { bottom, DataScalar, isBottom, type Value } from './values';
import { NO_ARCS, type Vertex } from './vertex';

export function addData(vertex: Vertex, value: unknown): void {
  if (value === null) return addScalar(vertex, { t: 'null' });
  if (value instanceof DataScalar) return addScalar(vertex, value.scalar);
  switch (typeof value) {
    case 'string':
      return addScalar(vertex, { t: 'string', v: value });
    case 'boolean':
      return addScalar(vertex, { t: 'bool', v: value });
    case 'number':
      // CUE reads the descriptor's JSON: from 1e21 up a number is written with an exponent, a float; an integer
      // past 2^53 is the digits JSON writes for it (18446744073709551616 is written 18446744073709552000).
      if (!Number.isInteger(value) || Math.abs(value) >= 1e21) return addScalar(vertex, { t: 'num', int: false, v: value });
      return addScalar(
        vertex,
        Number.isSafeInteger(value) ? { t: 'num', int: true, v: value } : { t: 'num', int: true, v: value, literal: JSON.stringify(value) },
      );
    case 'object': {
      if (Array.isArray(value)) {
        vertex.isList = true;
        value.forEach((element, index) => vertex.arc(String(index)).addConjunct(dataConjunct(element)));
        vertex.work.lists.push({ length: value.length, open: false, at: { offset: 0, line: 0, column: 0 } });
        return;
      }
      vertex.isStruct = true;
      // Its fields become arcs when reached, if it is the first thing here (then they come first, as they would).
      if (vertex.arcMap === NO_ARCS && !vertex.unread && !vertex.patternsApplied) {
        vertex.unread = value as Record<string, unknown>;
        return;
      }
      if (vertex.unread) vertex.readAll();
      const object = value as Record<string, unknown>;
      for (const key in object) vertex.arc(key).addConjunct(dataConjunct(object[key]));
      return;
    }
  }
  vertex.fail(bottom(`unsupported data value ${typeof value}`));
}

function addScalar(vertex: Vertex, value: Value): void {
  const matched = matchedCharacters(vertex.scalar, value);
  if (matched > 0) vertex.ctx.chargeText(matched);
  const unified = unifyScalars(vertex.scalar, value);
  if (isBottom(unified)) vertex.fail({ ...unified, at: [...new Set([...unified.at, ...vertex.work.positions])] });
  vertex.scalar = unified;
}
