import { Composer, type CST, type Document, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, type Pair, Parser } from 'yaml';

import { InvalidInput } from '#lib/errors/domain-errors';

/**
 * Bounds of a descriptor read from YAML. Reading stays linear in the text's size: nesting, entries
 * and aliases are counted on the parser's tokens (built without recursion) before the document is
 * composed (which recurses) or converted.
 */
export const YAML_LIMITS = { bytes: 1_048_576, depth: 100, entries: 50_000, aliases: 100 } as const;

type YamlNode = Document['contents'];

const refuse = (path: string, message: string) => new InvalidInput([{ path, message }]);

/** The deepest nesting, the number of collection entries and of aliases of the parser's tokens. */
function measure(tokens: readonly CST.Token[]): { depth: number; entries: number; aliases: number } {
  const measured = { depth: 0, entries: 0, aliases: 0 };
  const stack: Array<{ token: CST.Token | undefined; depth: number }> = tokens.map((token) => ({ token, depth: 0 }));
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { token, depth } = top;
    if (!token) continue;
    measured.depth = Math.max(measured.depth, depth);
    if (token.type === 'alias') measured.aliases++;
    if (token.type === 'document') stack.push({ token: token.value, depth });
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      measured.entries += token.items.length;
      for (const item of token.items) {
        if ('key' in item) stack.push({ token: item.key ?? undefined, depth: depth + 1 });
        stack.push({ token: item.value, depth: depth + 1 });
      }
    }
  }
  return measured;
}

/**
 * Reads a descriptor written in YAML. A key repeated with an equal value is accepted, as CUE
 * unifies repeated fields; with a different value it is refused, naming the key and both lines.
 */
export function readYaml(text: string, path: string): unknown {
  if (Buffer.byteLength(text, 'utf8') > YAML_LIMITS.bytes) throw refuse(path, `is larger than ${YAML_LIMITS.bytes} bytes`);
  const lines = new LineCounter();
  const tokens = [...new Parser(lines.addNewLine).parse(text)];
  const { depth, entries, aliases } = measure(tokens);
  if (depth > YAML_LIMITS.depth) throw refuse(path, `nests deeper than ${YAML_LIMITS.depth} levels`);
  if (entries > YAML_LIMITS.entries) throw refuse(path, `has more than ${YAML_LIMITS.entries} keys and list items`);
  if (aliases > YAML_LIMITS.aliases) throw refuse(path, `has more than ${YAML_LIMITS.aliases} YAML aliases`);

  const documents = [...new Composer({ uniqueKeys: false }).compose(tokens, true, text.length)];
  const [document] = documents;
  const lineOf = (offset: number) => lines.linePos(offset).line;
  if (documents.length > 1) throw refuse(path, `must be one YAML document, found another at line ${lineOf(documents[1].range[0])}`);
  const [error] = document.errors;
  if (error) {
    const at = lines.linePos(error.pos[0]);
    throw refuse(path, `not valid YAML at line ${at.line}, column ${at.col}: ${error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  checkNodes(document, path, lineOf);
  try {
    return document.toJS({ maxAliasCount: YAML_LIMITS.aliases });
  } catch (failure) {
    // yaml's guard against alias bombs: expansions past maxAliasCount relative to the document.
    if (failure instanceof ReferenceError) throw refuse(path, `its YAML aliases expand to more than ${YAML_LIMITS.aliases} times the aliased content`);
    throw failure;
  }
}

const jsonOf = (document: Document, node: unknown): string =>
  isScalar(node)
    ? JSON.stringify(node.value)
    : JSON.stringify((node as { toJS?: (doc: Document, options: object) => unknown })?.toJS?.(document, { maxAliasCount: YAML_LIMITS.aliases }) ?? null);

/** Circular aliases and keys repeated with different values, walking without recursion. */
function checkNodes(document: Document, path: string, lineOf: (offset: number) => number): void {
  const stack: Array<{ node: YamlNode | Pair['value']; at: string }> = [{ node: document.contents, at: '' }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, at } = top;
    if (isAlias(node)) {
      const target = node.resolve(document);
      // An alias inside the text of the node it names would make that node contain itself.
      if (target?.range && node.range && node.range[0] >= target.range[0] && node.range[0] < target.range[1]) {
        throw refuse(path, `the alias *${node.source} at line ${lineOf(node.range[0])} is inside the node it refers to (a circular alias)`);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        stack.push({ node: item as YamlNode, at: at ? `${at}.${index}` : String(index) });
      });
    } else if (isMap(node)) {
      const seen = new Map<string, Pair>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : jsonOf(document, pair.key);
        const keyPath = at ? `${at}.${key}` : key;
        const earlier = seen.get(key);
        if (earlier && jsonOf(document, earlier.value) !== jsonOf(document, pair.value)) {
          const lineOfPair = (entry: Pair) => lineOf((entry.key as { range?: [number, number, number] } | null)?.range?.[0] ?? 0);
          throw refuse(path, `repeats the key "${keyPath}" with different values, at lines ${lineOfPair(earlier)} and ${lineOfPair(pair)}`);
        }
        seen.set(key, pair);
        stack.push({ node: pair.value as YamlNode, at: keyPath });
      }
    }
  }
}
