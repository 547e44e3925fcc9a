import { parse as parseJson, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parseDocument } from 'yaml';
import { Invalid } from '../../http/problems';

/** A descriptor as it travels: its value (what policies see) and its text (what remote engines get). */
export interface Descriptor {
  readonly value: Record<string, unknown>;
  readonly text: string;
}

/**
 * Reads a descriptor given as YAML or JSON text, or as an object. Text that does not parse is a
 * 400 naming `path`, with the parser's line and column.
 */
export function parseDescriptor(input: string | Record<string, unknown>, path = 'descriptor'): Descriptor {
  if (typeof input !== 'string') return { value: input, text: JSON.stringify(input) };
  const value = /^\s*[[{]/.test(input) ? readJson(input, path) : readYaml(input, path);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Invalid([{ path, message: 'must be a YAML or JSON object (a mapping of fields)' }]);
  }
  return { value: value as Record<string, unknown>, text: input };
}

const invalidAt = (path: string, format: string, line: number, column: number, reason: string) =>
  new Invalid([{ path, message: `not valid ${format} at line ${line}, column ${column}: ${reason}` }]);

// Text that opens like JSON is read as strict JSON: YAML would take `{"a": }` as `a: null`.
function readJson(text: string, path: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJson(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const [error] = errors;
  if (!error) return value;
  const before = text.slice(0, error.offset).split('\n');
  throw invalidAt(path, 'JSON', before.length, before.at(-1)!.length + 1, printParseErrorCode(error.error));
}

function readYaml(text: string, path: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true });
  const [error] = document.errors;
  if (!error) return document.toJS({ maxAliasCount: 100 });
  const at = error.linePos?.[0] ?? { line: 1, col: 1 };
  throw invalidAt(path, 'YAML', at.line, at.col, error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''));
}

/** The value at a field of the descriptor: a key as written, or a dotted path into nested objects. */
export function fieldOf(value: Record<string, unknown>, field: string): unknown {
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
