import { parse as parseJson, type ParseError, printParseErrorCode } from 'jsonc-parser';

import { storableJsonText, unstorableText } from '#lib/db/storable-text';
import { InvalidInput } from '#lib/errors/domain-errors';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '#lib/http/json-nesting';

import type { Descriptor } from '../../../drizzle/schema/json-columns';
import { readYaml } from './descriptor-yaml';

/**
 * Reads a descriptor given as YAML or JSON text, or as an object. Text that does not parse, is
 * past the bounds of its reader, or decodes to text the database cannot store is a 400 naming
 * `path`, with the parser's line and column where there is one.
 */
export function parseDescriptor(input: string | Record<string, unknown>, path = 'descriptor'): Descriptor {
  if (typeof input !== 'string') return { value: input, text: JSON.stringify(input), fromObject: true };
  const json = /^\s*[[{]/.test(input);
  const value = json ? readJson(input, path) : readYaml(input, path);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInput([{ path, message: 'must be a YAML or JSON object (a mapping of fields)' }]);
  }
  // The walk over every string is needed only when the text could hold an unstorable one.
  const unstorable = json && storableJsonText(input) ? undefined : unstorableText(value, path);
  if (unstorable) throw new InvalidInput([unstorable]);
  return { value: value as Record<string, unknown>, text: input };
}

// Text that opens like JSON is read as strict JSON: YAML would take `{"a": }` as `a: null`. The
// runtime's JSON.parse reads it (~5x faster than jsonc-parser: bench (e) reads 5,000 descriptors of
// ~4.7 KB per publish); jsonc-parser reads only the text JSON.parse refused, to say where and why.
function readJson(text: string, path: string): unknown {
  if (jsonNestsDeeperThan(text)) throw new InvalidInput([{ path, message: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` }]);
  try {
    return JSON.parse(text);
  } catch {
    // Refused: jsonc-parser names the place.
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJson(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const [error] = errors;
  if (!error) return value;
  const before = text.slice(0, error.offset).split('\n');
  throw new InvalidInput([
    { path, message: `not valid JSON at line ${before.length}, column ${(before.at(-1) ?? '').length + 1}: ${printParseErrorCode(error.error)}` },
  ]);
}

/** The value at a field of the descriptor: a key as written, or a dotted path into nested objects. */
function fieldOf(value: Record<string, unknown>, field: string): unknown {
  if (field in value) return value[field];
  let current: unknown = value;
  for (const part of field.split('.')) {
    if (current === null || typeof current !== 'object' || !(part in current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A scalar field as text; undefined when absent or not a scalar. */
export function scalarFieldOf(value: Record<string, unknown>, field: string): string | undefined {
  const found = fieldOf(value, field);
  return typeof found === 'string' || typeof found === 'number' || typeof found === 'boolean' ? String(found) : undefined;
}
