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
import { BeyondNative } from '../internal/beyond-native';
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

/** Go's encoder escapes U+2028 and U+2029, which JSON.stringify leaves as they are, and (HTML-safe) `<`, `>` and `&`. */
const jsonString = (text: string): string =>
  JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');

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
    for (const [label, value] of data) map.items.push(new Pair(yamlKey(label), yamlNode(value)));
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
      // CUE writes a number as its literal was written (`1e21`), which a double does not keep.
      if (/e/i.test(text)) throw new BeyondNative(`the number ${text} is written in YAML by CUE's own encoder`);
      const dot = text.indexOf('.');
      if (!data.int && dot >= 0 && !/e/i.test(text)) node.minFractionDigits = text.length - dot - 1;
      return node;
    }
    case 'string':
      return yamlString(data.v);
    case 'bytes':
      return yamlString(data.v);
  }
}

/**
 * A string value: a literal block when it has lines; double-quoted when, plain, it would read as
 * something else (`null`, `0777`, `1.5`, YAML 1.1's `yes`, a time); otherwise as the emitter chooses,
 * single-quoted where quotes are needed (`'- a'`).
 */
function yamlString(text: string): Scalar {
  const node = new Scalar(text);
  // CUE writes an indentation indicator (`|2+`) where a block starts blank.
  if (text.includes('\n') && /^[\n ]/.test(text)) throw new BeyondNative("a string starting blank is written in YAML by CUE's own encoder");
  if (text.includes('\n')) node.type = Scalar.BLOCK_LITERAL;
  else if (LEGACY_STRINGS.has(text) || QUOTED.test(text) || !readsAsString(text)) node.type = Scalar.QUOTE_DOUBLE;
  return node;
}

/** A map's key: double-quoted when YAML 1.1 would read it as a boolean or a time (current CUE; v0.4 writes it plain). */
function yamlKey(label: string): Scalar {
  const node = new Scalar(label);
  if (LEGACY_STRINGS.has(label) || QUOTED.test(label)) node.type = Scalar.QUOTE_DOUBLE;
  return node;
}

function readsAsString(text: string): boolean {
  try {
    return yamlPlainScalar(text) === JSON.stringify(text);
  } catch (error) {
    if (error instanceof BeyondNative) return false;
    throw error;
  }
}

/** YAML as CUE's yaml.Marshal writes it: block style, indented by 2, lines never folded, single quotes where quotes are needed and escapes are not. */
export function toYaml(data: Exported): string {
  const document = new Document();
  document.contents = yamlNode(data);
  return document.toString({ indent: 2, indentSeq: true, lineWidth: 0, singleQuote: true });
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
  // A directive line must name its directive (Go's YAML: `could not find expected directive name`).
  if (/^%(?![A-Za-z])/m.test(text)) return new Error('yaml: could not find expected directive name');
  // Every scalar read as text: yamlScalar resolves plain ones as CUE v0.4's YAML decoder does.
  const documents = parseAllDocuments(text, { version: '1.2', schema: 'failsafe' });
  if (!Array.isArray(documents)) return [];
  const sources: string[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) return new Error(`yaml: ${document.errors[0].message}`);
    try {
      sources.push(yamlSource(document.contents, text));
    } catch (error) {
      if (error instanceof YamlUnsupported) return error;
      throw error;
    }
  }
  return sources;
}

/** A YAML document's CUE source as a value; throws a CueSyntaxError where CUE cannot read a number's text (`08`). */
export function fromYamlSource(source: string, from: Vertex): Value {
  return asValue(source, from);
}

class YamlUnsupported extends Error {}

/** One YAML node as CUE source, as CUE v0.4's YAML decoder (internal/third_party/yaml) makes it. */
function yamlSource(node: unknown, text: string): string {
  if (node === null || node === undefined) return 'null';
  if (isMap(node)) {
    const field = (pair: (typeof node.items)[number]) =>
      `${JSON.stringify(String(isYamlScalar(pair.key) ? pair.key.value : pair.key))}: ${yamlSource(pair.value, text)}`;
    return `{${node.items.map(field).join(', ')}}`;
  }
  if (isSeq(node)) return `[${node.items.map((item) => yamlSource(item, text)).join(', ')}]`;
  if (!isYamlScalar(node)) throw new YamlUnsupported('yaml: unsupported node (an alias or a tag the native evaluator does not read)');
  const value = String(node.value);
  if (node.tag) throw new BeyondNative(`the YAML tag ${node.tag} is read by CUE's own decoder`);
  // A block scalar that ends the text without a line break keeps none in CUE's decoder.
  if ((node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') && (node.range?.[1] ?? 0) >= text.length && !text.endsWith('\n'))
    throw new BeyondNative("a block scalar ending the text is read by CUE's own decoder");
  return node.type === 'PLAIN' ? yamlPlainScalar(value) : JSON.stringify(value);
}

const YAML_NULL = new Set(['', '~', 'null', 'Null', 'NULL']);
const YAML_TRUE = new Set(['true', 'True', 'TRUE']);
const YAML_FALSE = new Set(['false', 'False', 'FALSE']);
const YAML_SPECIAL = new Set(['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF', '<<']);
/** Go's strconv.ParseInt(s, 0, 64) and ParseUint syntax, the underscores already taken out. */
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const YAML_STYLE_FLOAT = /^[-+]?[0-9]*\.?[0-9]+([eE][-+][0-9]+)?$/;
/** What Go's strconv.ParseFloat reads of a text starting with a dot. */
const GO_DOT_FLOAT = /^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/;

/**
 * A plain scalar resolved as go-yaml v2 (CUE's fork) resolves it: YAML 1.1's null and bool words
 * (only those three spellings each), integers as Go reads them with `_` taken out (`0777` octal,
 * `0b101`, `1_000`), floats of YAML's own style; anything else a string. A number keeps its text,
 * a leading `0` octal written `0o`, as CUE's decoder writes it. What CUE then reads in its own way
 * (infinities, NaN, a leading `+`, merge keys, a number past 64 bits) is BeyondNative.
 */
function yamlPlainScalar(text: string): string {
  if (YAML_NULL.has(text)) return 'null';
  if (YAML_TRUE.has(text)) return 'true';
  if (YAML_FALSE.has(text)) return 'false';
  if (YAML_SPECIAL.has(text)) throw new BeyondNative(`the YAML scalar ${text} is read by CUE's own decoder`);
  const first = text[0];
  let kind: 'int' | 'float' | undefined;
  if (first === '.') kind = GO_DOT_FLOAT.test(text) ? 'float' : undefined;
  else if (first === '+' || first === '-' || (first >= '0' && first <= '9')) {
    const plain = text.replaceAll('_', '');
    kind = GO_INT.test(plain) ? 'int' : YAML_STYLE_FLOAT.test(plain) ? 'float' : undefined;
  }
  if (!kind) return JSON.stringify(text);
  // CUE reads a number's text as its own literal: `1_000` as written, others with `_` or `+` its own way.
  const underscores = text.includes('_') && !(kind === 'int' && DECIMAL_WITH_UNDERSCORES.test(text));
  if (text.startsWith('+') || underscores || (kind === 'int' && !fitsGoInt(text.replaceAll('_', ''))))
    throw new BeyondNative(`the YAML number ${text} is read by CUE's own decoder`);
  if (kind === 'float') return text;
  const digits = text.replace(/^-/, '');
  const octal = digits.length > 1 && digits[0] === '0' && digits[1] <= '9' ? `0o${digits.slice(1)}` : digits;
  return text.startsWith('-') ? `-${octal}` : octal;
}

const DECIMAL_WITH_UNDERSCORES = /^-?[1-9][0-9]*(?:_[0-9]+)*$/;

/** Within int64, or uint64 for a positive number: what strconv.ParseInt and ParseUint take. */
function fitsGoInt(text: string): boolean {
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const radix = /^0[xX]/.test(digits) ? 16 : /^0[oO]/.test(digits) ? 8 : /^0[bB]/.test(digits) ? 2 : digits.length > 1 && digits[0] === '0' ? 8 : 10;
  const body = radix === 10 ? digits : digits.replace(/^0[xXoObB]?/, '') || '0';
  let value = 0n;
  for (const char of body) value = value * BigInt(radix) + BigInt(parseInt(char, radix));
  return negative ? value <= 2n ** 63n : value < 2n ** 64n;
}
