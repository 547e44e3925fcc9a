import { unificationError } from '../evaluation/validate';
import type { Value } from '../evaluation/values';
import type { Vertex } from '../evaluation/vertex';
import { type Exported, exportValue, fromJson, fromYamlSource, NotConcrete, yamlDocuments } from '../export/encodings';
import { CueSyntaxError } from '../syntax/scanner';
import { ArgumentError, CallError, type Js } from './builtin';

/** A value exported as text, or the error saying why it is not concrete. */
export function marshal(value: Js, write: (data: Exported) => string): string {
  try {
    return write(exportValue(value as Value));
  } catch (error) {
    if (error instanceof NotConcrete) throw new ArgumentError(error.error);
    throw error;
  }
}

export function marshalStream(items: Js, write: (data: Exported) => string, separator: string): string {
  return (items as Value[]).map((item) => marshal(item, write)).join(separator);
}

/**
 * json.Validate and yaml.Validate: true when the value unifies with the schema, else the error
 * (CUE's `v.Unify(schema).Err()`); `concrete` (yaml.Validate): also when something is left not concrete.
 */
export function validates(value: Value, schema: Value, from: Vertex, concrete = false): true {
  const error = unificationError(value, schema, from, false, concrete);
  if (error) throw new CallError(error.message);
  return true;
}

/** yaml.Validate: every document of the stream against the schema, each concrete, as CUE v0.4 checks them. */
export function validatesYaml(text: string, schema: Value, from: Vertex): true {
  for (const document of unmarshalYaml(text, from)) validates(document, schema, from, true);
  return true;
}

export function unmarshalJson(text: string, from: Vertex): Value {
  const value = readSource(() => fromJson(text, from));
  if (!value) throw new CallError('json: invalid JSON');
  return value;
}

/** A decoded document as CUE reads it: what its scanner refuses (`"\ud800"`, `08`) is the call's error. */
function readSource<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof CueSyntaxError) throw new CallError(`parse error: ${error.message}`);
    throw error;
  }
}

function unmarshalYaml(text: string, from: Vertex): Value[] {
  const documents = yamlDocuments(text);
  if (documents instanceof Error) throw new CallError(documents.message);
  return documents.map((source) => readSource(() => fromYamlSource(source, from)));
}

export function unmarshalYamlOne(text: string, from: Vertex): Value {
  const documents = unmarshalYaml(text, from);
  if (documents.length > 1) throw new CallError('yaml: expected a single document');
  return documents[0] ?? { t: 'null' };
}
