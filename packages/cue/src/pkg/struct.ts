import { type Bottom, validationError } from '../evaluation/values';
import type { Vertex } from '../evaluation/vertex';
import { fn, type Js, n, pkg } from './builtin';

const fields = (value: Js) => (value as Vertex).regularArcs().length;

export const struct = pkg('struct', [
  fn('struct.MinFields', ['struct', 'int'], ([value, count]) => minFields(value as Vertex, n(count)), { validator: true }),
  fn(
    'struct.MaxFields',
    ['struct', 'int'],
    ([value, count]) => fields(value) <= n(count) || validationError(`len(fields) > MaxFields(${n(count)}) (${fields(value)} > ${n(count)})`),
    {
      validator: true,
    },
  ),
]);

/**
 * struct.MinFields (pkg/struct): a struct that may still get the fields it lacks (open, with patterns, or with
 * enough optional and required fields) fails incompletely, unless a descriptor made it.
 */
function minFields(object: Vertex, min: number): boolean | Bottom {
  const count = fields(object);
  if (count >= min) return true;
  const constraints = [...object.arcs.values()].filter((arc) => !arc.regular && !arc.definition && !arc.hidden).length;
  const mayGrow = !object.isClosed() || object.patterns.length > 0 || count + constraints >= min;
  return validationError(`len(fields) < MinFields(${min}) (${count} < ${min})`, mayGrow && !object.ctx.closedWorld ? 'incomplete' : 'eval');
}
