import type { Value } from '../evaluation/values';
import type { Vertex } from '../evaluation/vertex';
import { type Exported, exportValue, fromJson, fromYamlSource, NotConcrete, yamlDocuments } from '../export/encodings';
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

export function unmarshalJson(text: string, from: Vertex): Value {
  const value = fromJson(text, from);
  if (!value) throw new CallError('json: invalid JSON');
  return value;
}

function unmarshalYaml(text: string, from: Vertex): Value[] {
  const documents = yamlDocuments(text);
  if (documents instanceof Error) throw new CallError(documents.message);
  return documents.map((source) => fromYamlSource(source, from));
}

export function unmarshalYamlOne(text: string, from: Vertex): Value {
  const documents = unmarshalYaml(text, from);
  if (documents.length > 1) throw new CallError('yaml: expected a single document');
  return documents[0] ?? { t: 'null' };
}
