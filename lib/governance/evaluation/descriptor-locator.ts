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

/** locateCuePath for many paths of one text: the text is parsed once. */
export function descriptorLocator(text: string): (path: string | undefined) => DescriptorPosition {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false, strict: false });
  const at = (offset: number, exact: boolean): DescriptorPosition => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col, exact };
  };
  return (path) => {
    const start = { line: 1, column: 1, exact: path === undefined || path === '' };
    if (document.errors.length > 0 || path === undefined) return start;
    let node: unknown = document.contents;
    let found: DescriptorPosition = start;
    const labels = cuePathLabels(path);
    for (const [index, label] of labels.entries()) {
      const last = index === labels.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === label);
        const key = pair?.key as Node | undefined;
        if (!pair || !key?.range) return found;
        found = at(key.range[0], last);
        node = pair.value;
      } else if (isSeq(node) && /^\d+$/.test(label)) {
        const item = node.items[Number(label)] as Node | undefined;
        if (!item?.range) return found;
        found = at(item.range[0], last);
        node = item;
      } else {
        return found;
      }
    }
    return found;
  };
}
