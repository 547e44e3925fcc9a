import { createHash } from 'node:crypto';

export const SOURCE_TYPES = ['policy', 'metric', 'resource_type', 'environment', 'guide', 'results'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** What a chunk was taken from: an entity version, a resource type, an environment, a guide section, a results summary. */
export interface KnowledgeSource {
  readonly type: SourceType;
  readonly id: string;
  readonly version?: number;
  readonly title: string;
  readonly content: string;
}

/** A piece of a source, small enough for one embedding. */
export interface KnowledgeChunk {
  readonly key: string;
  readonly source: Omit<KnowledgeSource, 'content'>;
  readonly content: string;
  readonly contentHash: string;
}

/** Longest chunk, in characters: well within an embedding model's input limit (8191 tokens). */
const MAX_CHUNK_CHARACTERS = 6000;

/** Splits at line ends so that no piece is longer than `max` (a longer line is cut). */
function pieces(text: string, max: number): string[] {
  const result: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    for (let start = 0; start < Math.max(line.length, 1); start += max) {
      const part = line.slice(start, start + max);
      if (current && current.length + 1 + part.length > max) {
        result.push(current);
        current = '';
      }
      current = current ? `${current}\n${part}` : part;
    }
  }
  if (current.trim() || result.length === 0) result.push(current);
  return result;
}

/** The chunks of a source: one, or several when it is long; keyed by source and part. */
export function chunksOf(source: KnowledgeSource): KnowledgeChunk[] {
  const { content, ...identity } = source;
  const base = `${source.type}:${source.id}${source.version === undefined ? '' : `:${source.version}`}`;
  return pieces(content, MAX_CHUNK_CHARACTERS).map((part, index) => ({
    key: `${base}#${index}`,
    source: identity,
    content: part,
    contentHash: createHash('sha256').update(`${source.title}\n${part}`).digest('hex'),
  }));
}

const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A Markdown guide as one source per `## ` section; what precedes the first is its introduction. */
export function guideSections(markdown: string, guideTitle: string): KnowledgeSource[] {
  const sections: KnowledgeSource[] = [];
  let heading = 'Introduction';
  let lines: string[] = [];
  let inCode = false;
  const used = new Map<string, number>();
  const flush = () => {
    const content = lines.join('\n').trim();
    if (!content) return;
    // Two sections of the same heading keep apart: the second is <slug>-2.
    const seen = (used.get(slug(heading)) ?? 0) + 1;
    used.set(slug(heading), seen);
    sections.push({ type: 'guide', id: seen === 1 ? slug(heading) : `${slug(heading)}-${seen}`, title: `${guideTitle}: ${heading}`, content });
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    if (!inCode && line.startsWith('## ')) {
      flush();
      heading = line.slice(3).replace(/`/g, '').trim();
      lines = [];
    } else if (!(line.startsWith('# ') && !inCode)) {
      lines.push(line);
    }
  }
  flush();
  return sections;
}
