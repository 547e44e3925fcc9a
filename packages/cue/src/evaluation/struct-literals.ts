/**
 * A struct literal unified into a vertex (spec.md, "Structs"): its fields become arcs, its patterns, embeddings,
 * comprehensions and computed labels are queued, and what closes them is decided.
 */
import type { Decl, StructLit } from '../syntax/ast';
import { closingDefinitions, definitionOrigin, isDefinitionLabel, Reference } from './closedness';
import type { Conjunct, Env, Pattern } from './conjuncts';
import { defaultOf, evalExpr, sourceText, startOf } from './expressions';
import { applyPattern } from './patterns';
import { bottom, formatValue, isBottom, isScalar, kindName, kindOf } from './values';
import { Vertex, type Work } from './vertex';

/**
 * `{x}` is the value of x; a struct as soon as it declares anything else (or nothing). `{5, #d: 1}`
 * is 5 (with a definition): definitions, hidden and optional fields beside an embedding do not make a struct.
 */
function makesStruct(lit: StructLit): boolean {
  if (lit.makesStruct === undefined) {
    // Beside an embedding, `...` and pattern constraints make no struct (CUE's addStruct sets aStruct for regular fields only):
    // {..., #foo: string, _} & {string, #foo: "bar"} is that string.
    const regular = lit.decls.some(
      (decl) =>
        decl.type === 'field' &&
        decl.constraint !== '?' &&
        decl.label.kind !== 'pattern' &&
        !(decl.label.kind === 'name' && !decl.label.quoted && /^[#_]/.test(decl.label.name)),
    );
    lit.makesStruct = regular || !lit.decls.some((decl) => decl.type === 'embed' || decl.type === 'comprehension');
  }
  return lit.makesStruct;
}

const isEmbedding = (decl: Decl): boolean => decl.type === 'embed';
export function addStruct(vertex: Vertex, conjunct: Conjunct, lit: StructLit): void {
  if (lit.decls.length > 0) vertex.work.shapes.push(lit.at);
  const env: Env = { up: conjunct.env, vertex, scope: lit };
  let group = conjunct.group;
  // A struct written as an embedding (`#C: {#A & #B, {[=~"^Q*$"]: int}}`) declares for the struct it is in.
  const embeddedStruct = group !== undefined && conjunct.embedded === true && !conjunct.viaConjunction;
  const own = !group || embeddedStruct;
  if (!group) {
    // The declarations of one definition (and of its fields) share a group: together they say what is allowed.
    group = conjunct.origin ? vertex.originGroup(conjunct.origin) : vertex.newGroup();
  }
  if (conjunct.closed) group.active = true;
  // What closes the fields: what closes vertex struct, shared by all its declarations; a struct that
  // embeds is closed on its own as well (`#B: #A & {#E, c: 1}` allows in c only what #E and it declare),
  // and an open one that embeds a definition closes with it (`a: {#A, #B}` allows a.b from both).
  const outer = conjunct.closed ? (conjunct.origin ?? group) : conjunct.origin;
  // A struct that is itself embedded is no new scope: what it embeds closes with the struct it is in, whose own
  // fields it allows (`r: {input: 1, {#deps}}` allows input beside #deps' root, as CUE's splitStruct).
  const within = lit.decls.some(isEmbedding) && !embeddedStruct ? (outer ? new Reference(outer) : group) : outer;
  group.declareFields(lit, own);
  const closing = conjunct.closed ? undefined : closingDefinitions(lit, env, vertex);
  for (const decl of lit.decls) {
    switch (decl.type) {
      case 'field': {
        const { label } = decl;
        if (label.kind === 'name') {
          const definition = !label.quoted && isDefinitionLabel(label.name);
          const arc = vertex.arc(label.name, definition, !label.quoted && label.name.startsWith('_'));
          const origin = !definition ? within : conjunct.closed && outer ? definitionOrigin(outer, label.name) : arc;
          const reclosed = closing?.every((target) => !target.arcs.has(label.name)) === true || (conjunct.reclosed === true && !definition);
          arc.addConjunct({ expr: decl.value, env, closed: conjunct.closed || definition || reclosed, origin, via: conjunct.via, reclosed }, decl.constraint);
        } else if (label.kind === 'pattern') {
          const pattern: Pattern = {
            label: label.expr,
            env,
            value: decl.value,
            alias: label.alias,
            fieldAlias: decl.alias,
            closed: conjunct.closed,
            origin: within,
          };
          vertex.addPattern(pattern);
          group.addPattern(pattern);
          if (own) (group.ownPatterns ??= []).push(pattern);
          if (vertex.patternsApplied) for (const arc of vertex.arcs.values()) applyPattern(vertex, pattern, arc);
        } else {
          vertex.work.dynamic.push({ label: label.expr, decl, env, closed: conjunct.closed, group, origin: within });
        }
        break;
      }
      case 'embed':
        vertex.work.pending.push({ expr: decl.expr, env, closed: conjunct.closed, group, embedded: true, origin: within });
        break;
      case 'ellipsis':
        group.open = true;
        if (decl.constraint) vertex.addPattern({ label: { type: 'ident', name: '_', at: decl.at }, env, value: decl.constraint, closed: conjunct.closed });
        break;
      case 'comprehension':
        // What it yields is declared by vertex struct: its fields share what closes vertex struct's.
        vertex.work.comprehensions.push({ comp: decl, env, closed: conjunct.closed, group, origin: within });
        break;
    }
  }
  if (makesStruct(lit)) vertex.isStruct = true;
  else if (!lit.decls.some(isEmbedding)) vertex.work.comprehensionStruct = true;
}

/** Adds a field with a computed label; false when its label is not concrete yet and vertex is not the last try. */
export function addDynamic(vertex: Vertex, dynamic: Work['dynamic'][number], last: boolean): boolean {
  const label = defaultOf(evalExpr(dynamic.label, dynamic.env, vertex));
  if (isBottom(label) ? label.code === 'incomplete' : !isScalar(label) && !(label instanceof Vertex)) {
    if (!last) return false;
    // The struct is incomplete, as in CUE (a descriptor may still make the label concrete).
    vertex.tainted = true;
    const found = isBottom(label) ? `_|_(${label.message})` : formatValue(label);
    vertex.fail(bottom(`key value of dynamic field must be concrete, found ${found}`, [startOf(dynamic.label)], 'incomplete'));
    return true;
  }
  if (isBottom(label) || label.t !== 'string') {
    const source = sourceText(dynamic.label) ?? formatValue(label);
    const kind = kindName(kindOf(label));
    vertex.fail(
      isBottom(label)
        ? label
        : bottom(label.t === 'num' && label.int ? 'integer fields not supported' : `invalid index ${source} (invalid type ${kind})`, [dynamic.decl.at]),
    );
    return true;
  }
  vertex.isStruct = true;
  vertex.arc(label.v).addConjunct({ expr: dynamic.decl.value, env: dynamic.env, closed: dynamic.closed, origin: dynamic.origin }, dynamic.decl.constraint);
  dynamic.group.declare(label.v);
  return true;
}
