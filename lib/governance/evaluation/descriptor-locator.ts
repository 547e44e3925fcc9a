import { type Node as JsonNode, type ParseError, parseTree } from 'jsonc-parser';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/** A place in a descriptor's text, 1-based. `exact`: the whole path was found, not only a parent of it. */
export interface DescriptorPosition {
  readonly line: number;
  readonly column: number;
  readonly exact: boolean;
}

/**
 * The labels of a CUE error path as CUE prints it: `components.0.name`, `"a.b".c`,
 * `components.0."_links"` (quoted labels may hold dots).
 */
export function cuePathLabels(path: string): string[] {
  const labels: string[] = [];
  for (const match of path.matchAll(/"((?:[^"\\]|\\.)*)"|([^.]+)/g)) {
    labels.push(match[1] === undefined ? match[2] : (JSON.parse(`"${match[1]}"`) as string));
  }
  return labels;
}

/** The path a CUE message names: the text before its first ': ' when it looks like a path (no spaces outside quotes). */
export function cueErrorPath(message: string): string | undefined {
  const head = message.split(': ')[0];
  return head !== message && /^(?:"(?:[^"\\]|\\.)*"|[^\s."]+)(?:\.(?:"(?:[^"\\]|\\.)*"|[^\s."]+))*$/.test(head) ? head : undefined;
}

/**
 * Where a CUE error path is in a YAML or JSON descriptor's text (JSON is read as YAML flow style):
 * the key of the deepest field of the path the text has (the field itself, or the parent a missing
 * field belongs in), or line 1 when none is found or the text does not parse. List items are found
 * by their index. Used by the command line's SARIF and GitHub outputs.
 */
export function locateCuePath(text: string, path: string | undefined): DescriptorPosition {
  return descriptorLocator(text)(path);
}

/**
 * locateCuePath for many paths of one text: the text is parsed once. Text that opens like JSON and
 * is strict JSON is read by jsonc-parser (about 20 times faster than the YAML reader, which bench (e)
 * felt: a third of 5,000 descriptors fail there); any other text by the YAML reader.
 */
export function descriptorLocator(text: string): (path: string | undefined) => DescriptorPosition {
  return (/^\s*[[{]/.test(text) && jsonLocator(text)) || yamlLocator(text);
}

type Step = (label: string) => { offset: number; next: () => Step | undefined } | undefined;

/** Walks the labels of `path` with `step`: the position of the deepest one found. */
function walk(path: string | undefined, root: Step | undefined, at: (offset: number, exact: boolean) => DescriptorPosition): DescriptorPosition {
  let found = { line: 1, column: 1, exact: path === undefined || path === '' };
  if (path === undefined) return found;
  let step = root;
  const labels = cuePathLabels(path);
  for (const [index, label] of labels.entries()) {
    const hit = step?.(label);
    if (!hit) return found;
    found = at(hit.offset, index === labels.length - 1);
    step = hit.next();
  }
  return found;
}

function yamlLocator(text: string): (path: string | undefined) => DescriptorPosition {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false, strict: false });
  const at = (offset: number, exact: boolean): DescriptorPosition => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col, exact };
  };
  const stepInto =
    (node: unknown): Step =>
    (label) => {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === label);
        const key = pair?.key as Node | undefined;
        return pair && key?.range ? { offset: key.range[0], next: () => stepInto(pair.value) } : undefined;
      }
      if (isSeq(node) && /^\d+$/.test(label)) {
        const item = node.items[Number(label)] as Node | undefined;
        return item?.range ? { offset: item.range[0], next: () => stepInto(item) } : undefined;
      }
      return undefined;
    };
  const root = document.errors.length > 0 ? undefined : stepInto(document.contents);
  return (path) => walk(path, root, at);
}

/** The JSON reader's locator, or undefined when the text is not strict JSON (the YAML reader then decides). */
function jsonLocator(text: string): ((path: string | undefined) => DescriptorPosition) | undefined {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (!tree || errors.length > 0) return undefined;
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lineStarts.push(index + 1);
  const at = (offset: number, exact: boolean): DescriptorPosition => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - lineStarts[low] + 1, exact };
  };
  const stepInto =
    (node: JsonNode | undefined): Step =>
    (label) => {
      if (node?.type === 'object') {
        // The first of repeated keys, as the YAML reader finds it.
        const property = node.children?.find((child) => child.children?.[0].value === label);
        const [key, value] = property?.children ?? [];
        return key ? { offset: key.offset, next: () => stepInto(value) } : undefined;
      }
      if (node?.type === 'array' && /^\d+$/.test(label)) {
        const item = node.children?.[Number(label)];
        return item ? { offset: item.offset, next: () => stepInto(item) } : undefined;
      }
      return undefined;
    };
  const root = stepInto(tree);
  return (path) => walk(path, root, at);
}
