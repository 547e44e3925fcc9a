/**
 * Values as JSON and YAML text and back, for the encoding/json and encoding/yaml packages
 * (builtins.ts). A value is written as `cue export` would write it: defaults taken, regular fields
 * only, an error when something in it is not concrete. Text is read as CUE reads it: JSON is CUE
 * (parsed as CUE, so `1.0` stays a float), YAML is turned into the CUE it means.
 */
import { Document, isMap, isScalar as isYamlScalar, isSeq, type Node as YamlNode, Pair, parseAllDocuments, Scalar, YAMLMap, YAMLSeq } from 'yaml';

import { defaultOf, valueOf } from '../evaluation/expressions';
import { type Bottom, bottom, formatNumber, formatValue, incomplete, isBottom, isScalar, type Scalar as CueScalar, type Value } from '../evaluation/values';
import { Vertex } from '../evaluation/vertex';
import { parseExpression } from '../syntax/parser';

/** A concrete value: scalars, lists (arrays) and structs (maps, in field order). */
export type Exported = CueScalar | Exported[] | Map<string, Exported>;

/** Thrown while exporting: the error that stops it. */
export class NotConcrete {
  constructor(readonly error: Bottom) {}
}

/** A value as concrete data, or NotConcrete thrown with the error (incomplete while it could still become concrete). */
export function exportValue(value: Value, depth = 0): Exported {
  const evaluated = defaultOf(value instanceof Vertex ? valueOf(value) : value);
  if (isBottom(evaluated)) throw new NotConcrete(evaluated);
  if (isScalar(evaluated)) return evaluated;
  if (!(evaluated instanceof Vertex)) throw new NotConcrete(incomplete(`cannot convert incomplete value ${JSON.stringify(formatValue(evaluated))} to JSON`));
  if (depth > evaluated.ctx.maxDepth) throw new NotConcrete(bottom('structural cycle', [], 'structural-cycle'));
  if (evaluated.isList) return evaluated.elements().map((element) => exportValue(element, depth + 1));
  const fields = new Map<string, Exported>();
  for (const arc of evaluated.arcs.values()) {
    if (arc.required && !arc.regular && !arc.definition && !arc.hidden) throw new NotConcrete(incomplete(`field is required but not present: ${arc.label}`));
  }
  for (const arc of evaluated.regularArcs()) fields.set(arc.label, exportValue(arc, depth + 1));
  return fields;
}

/** JSON as CUE's json.Marshal writes it: compact, HTML not escaped, bytes in base64. */
export function toJson(data: Exported): string {
  if (Array.isArray(data)) return `[${data.map(toJson).join(',')}]`;
  if (data instanceof Map) return `{${[...data].map(([label, value]) => `${jsonString(label)}:${toJson(value)}`).join(',')}}`;
  switch (data.t) {
    case 'null':
      return 'null';
    case 'bool':
      return String(data.v);
    case 'num':
      return formatNumber(data);
    case 'string':
      return jsonString(data.v);
    case 'bytes':
      return jsonString(Buffer.from(data.v, 'latin1').toString('base64'));
  }
}

/** Go's encoder escapes U+2028 and U+2029, which JSON.stringify leaves as they are. */
const jsonString = (text: string): string =>
  JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** Strings CUE's YAML encoder double-quotes: YAML 1.1 booleans and what YAML 1.1 reads as times or hex numbers. */
const LEGACY_STRINGS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'n',
  'N',
  't',
  'T',
  'f',
  'F',
  'no',
  'No',
  'NO',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
  '.Nan',
]);

const QUOTED = /^[-+0-9:. \t]+([-:]|[tT])[-+0-9:. \t]+[zZ]?$|^0x[a-fA-F0-9]+$/;

function yamlNode(data: Exported): YamlNode {
  if (Array.isArray(data)) {
    const list = new YAMLSeq<YamlNode>();
    for (const element of data) list.items.push(yamlNode(element));
    return list;
  }
  if (data instanceof Map) {
    const map = new YAMLMap<Scalar, YamlNode>();
    for (const [label, value] of data) map.items.push(new Pair(yamlString(label), yamlNode(value)));
    return map;
  }
  switch (data.t) {
    case 'null':
      return new Scalar(null);
    case 'bool':
      return new Scalar(data.v);
    case 'num': {
      const node = new Scalar(data.v);
      const text = formatNumber(data);
      const dot = text.indexOf('.');
      if (!data.int && dot >= 0 && !/e/i.test(text)) node.minFractionDigits = text.length - dot - 1;
      return node;
    }
    case 'string':
      return yamlString(data.v);
    case 'bytes': {
      const node = new Scalar(Buffer.from(data.v, 'latin1').toString('base64'));
      node.tag = '!!binary';
      return node;
    }
  }
}

function yamlString(text: string): Scalar {
  const node = new Scalar(text);
  if (text.includes('\n')) node.type = Scalar.BLOCK_LITERAL;
  else if (LEGACY_STRINGS.has(text) || QUOTED.test(text)) node.type = Scalar.QUOTE_DOUBLE;
  return node;
}

/** YAML as CUE's yaml.Marshal writes it: block style, indented by 2, lines never folded. */
export function toYaml(data: Exported): string {
  const document = new Document();
  document.contents = yamlNode(data);
  return document.toString({ indent: 2, indentSeq: true, lineWidth: 0 });
}

/** A JSON or YAML document as the CUE value it means, evaluated where `from` is. */
function asValue(source: string, from: Vertex): Value {
  const value = new Vertex(from.ctx, from.label, from.parent);
  value.addConjunct({ expr: parseExpression(source), env: {}, closed: false });
  return valueOf(value);
}

/** Go's encoding/json refuses to nest arrays and objects deeper than this (maxNestingDepth). */
const MAX_NESTING = 10_000;

/** Whether the arrays and objects of JSON text nest deeper than Go's decoder allows (strings skipped). */
function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const ch = text[index];
    if (inString) {
      if (ch === '\\') index++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      if (++depth > MAX_NESTING) return true;
    } else if (ch === ']' || ch === '}') depth--;
  }
  return false;
}

/** Whether the text is JSON as Go's encoding/json reads it (CUE's json.Valid), nesting bound included. */
export function isJson(text: string): boolean {
  if (nestsTooDeep(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON text as a CUE value; undefined when it is not valid JSON. */
export function fromJson(text: string, from: Vertex): Value | undefined {
  return isJson(text) ? asValue(text, from) : undefined;
}

/** The documents of a YAML stream as CUE source, or the first error in them. */
export function yamlDocuments(text: string): string[] | Error {
  const documents = parseAllDocuments(text, { version: '1.2', schema: 'core' });
  if (!Array.isArray(documents)) return [];
  const sources: string[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) return new Error(`yaml: ${document.errors[0].message}`);
    try {
      sources.push(yamlSource(document.contents));
    } catch (error) {
      return error as Error;
    }
  }
  return sources;
}

export function fromYamlSource(source: string, from: Vertex): Value {
  return asValue(source, from);
}

const YAML_INT = /^[-+]?([0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$/;

/** One YAML node as CUE source: a number keeps the kind its tag gives (`1.0` is a float). */
function yamlSource(node: unknown): string {
  if (node === null || node === undefined) return 'null';
  if (isMap(node)) {
    const field = (pair: (typeof node.items)[number]) =>
      `${JSON.stringify(String(isYamlScalar(pair.key) ? pair.key.value : pair.key))}: ${yamlSource(pair.value)}`;
    return `{${node.items.map(field).join(', ')}}`;
  }
  if (isSeq(node)) return `[${node.items.map(yamlSource).join(', ')}]`;
  if (!isYamlScalar(node)) throw new Error('yaml: unsupported node (an alias or a tag the native evaluator does not read)');
  const value = node.value;
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`yaml: ${String(node.source)} cannot be represented in CUE`);
    const int = node.tag ? node.tag === 'tag:yaml.org,2002:int' : YAML_INT.test(String(node.source));
    return formatNumber({ int, v: value });
  }
  throw new Error(`yaml: unsupported value ${String(node.source)}`);
}
