import type { Database } from '#lib/db/client';
import { embed, type GatewayOptions } from '#lib/llm/llm-gateway';
import type { ModelConnection } from '#lib/llm/model-config-repository';
import { logger } from '#lib/logging/logger';

import { chunksOf, type KnowledgeChunk } from './knowledge-chunk';
import { KnowledgeChunkRepository, type StaleMark } from './knowledge-chunk-repository';
import { allSources, type IndexScope, markedSources, type ReadSources, type SourceRef } from './knowledge-sources';

export interface RefreshCounts {
  embedded: number;
  unchanged: number;
  removed: number;
}

/** What a refresh did, and what it read. */
export interface RefreshOutcome extends RefreshCounts {
  /** `all`: every source was read; `stale`: only those marked stale. */
  read: 'all' | 'stale';
  /** How many sources were read (a policy version, a resource type, a guide section, a results summary: one each). */
  sources: number;
  /**
   * Sources left out of the index (a policy or metric with all its versions counts one), and their
   * chunks: with them it would hold more than `assistant.index.max-chunks`.
   */
  refused: { sources: number; chunks: number };
}

export interface RefreshLimits {
  /** Texts per embeddings call (`assistant.index.batch-size`). */
  batchSize: number;
  /** Chunks the index holds at most (`assistant.index.max-chunks`). */
  maxChunks: number;
}

/** Marks read at a time by a refresh of the stale sources. */
const MARKS_PER_PASS = 500;

/** The chunks of one source (by type and id) now, and what is stored of it. */
interface Part {
  readonly source: SourceRef;
  readonly chunks: KnowledgeChunk[];
  /** Keys stored that the source no longer makes. */
  readonly gone: string[];
}

const partKey = (source: SourceRef) => `${source.type}:${source.id}`;

const within = (source: SourceRef, scope: IndexScope) =>
  scope.types.includes(source.type) || scope.sources.some((named) => named.type === source.type && named.id === source.id);

/**
 * Writes what `read` makes over its part of the index: chunks whose text (hash) or embedder model
 * changed are embedded again, `batchSize` per call, and saved batch by batch (a failure keeps what
 * was done); chunks of the part that the sources no longer make are removed. A source whose new
 * chunks would take the index past `maxChunks` is left as it is stored (refused); one that shrinks
 * or keeps its size never is.
 */
async function rewrite(
  repository: KnowledgeChunkRepository,
  read: ReadSources,
  embedder: ModelConnection,
  gateway: GatewayOptions,
  limits: RefreshLimits,
): Promise<RefreshCounts & { refused: Part[] }> {
  const stored = await repository.stored(read.scope);
  const parts = new Map<string, Part>();
  const partOf = (source: SourceRef) => {
    const key = partKey(source);
    if (!parts.has(key)) parts.set(key, { source: { type: source.type, id: source.id }, chunks: [], gone: [] });
    return parts.get(key) as Part;
  };
  const made = new Set<string>();
  for (const chunk of read.sources.flatMap(chunksOf)) {
    partOf(chunk.source).chunks.push(chunk);
    made.add(chunk.key);
  }
  for (const [key, chunk] of stored) if (!made.has(key)) partOf({ type: chunk.sourceType, id: chunk.sourceId }).gone.push(key);

  // Room for new chunks: first what shrinking sources give back, then sources in their order while they fit.
  let room = limits.maxChunks - (await repository.total());
  const growth = new Map([...parts.values()].map((part) => [part, part.chunks.filter((chunk) => !stored.has(chunk.key)).length - part.gone.length]));
  const accepted: Part[] = [];
  const refused: Part[] = [];
  const ordered = [...parts.values()].sort((a, b) => Number((growth.get(a) ?? 0) > 0) - Number((growth.get(b) ?? 0) > 0));
  for (const part of ordered) {
    const grows = growth.get(part) ?? 0;
    if (grows > 0 && grows > room) {
      refused.push(part);
    } else {
      accepted.push(part);
      room -= grows;
    }
  }

  // Vectors of two models are never compared: a chunk embedded by another model is embedded again.
  const chunks = accepted.flatMap((part) => part.chunks);
  const stale = chunks.filter((chunk) => {
    const known = stored.get(chunk.key);
    return known?.contentHash !== chunk.contentHash || known.embedderModel !== embedder.model;
  });
  for (let start = 0; start < stale.length; start += limits.batchSize) {
    const batch = stale.slice(start, start + limits.batchSize);
    const vectors = await embed(
      embedder,
      batch.map((chunk) => `${chunk.source.title}\n${chunk.content}`),
      gateway,
    );
    await repository.save(batch, vectors, embedder.model);
  }
  const removed = await repository.remove(accepted.flatMap((part) => part.gone));
  return { embedded: stale.length, unchanged: chunks.length - stale.length, removed, refused };
}

function logRefused(refused: Part[], maxChunks: number): { sources: number; chunks: number } {
  const chunks = refused.reduce((sum, part) => sum + part.chunks.length, 0);
  if (refused.length > 0) {
    logger.error(
      {
        setting: 'assistant.index.max-chunks',
        maxChunks,
        refusedSources: refused.length,
        refusedChunks: chunks,
        examples: refused.slice(0, 5).map((part) => part.source),
      },
      `the knowledge index holds at most ${maxChunks} chunks (assistant.index.max-chunks): ${refused.length} sources (${chunks} chunks) were not indexed; ` +
        'raise the setting or remove sources. Questions are answered from what is indexed',
    );
  }
  return { sources: refused.length, chunks };
}

/** Every source read and written: marks made until it began are cleared, unless a source was refused. */
async function refreshAll(repository: KnowledgeChunkRepository, database: Database, embedder: ModelConnection, gateway: GatewayOptions, limits: RefreshLimits) {
  // Sources marked stale until now are taken into account: the sources are read after this.
  const { newest: marked } = await repository.staleMarks();
  const read = await allSources(database);
  const { refused, ...counts } = await rewrite(repository, read, embedder, gateway, limits);
  // A refused source keeps its mark, if it has one, for the refresher to try again.
  if (marked && refused.length === 0) await repository.clearStale(marked);
  return { ...counts, read: 'all' as const, sources: read.sources.length, refused };
}

/**
 * Only the sources marked stale, MARKS_PER_PASS marks at a time: each mark is cleared once its
 * sources are written (unless marked again meanwhile, or refused: the next run tries again).
 */
async function refreshStale(
  repository: KnowledgeChunkRepository,
  database: Database,
  embedder: ModelConnection,
  gateway: GatewayOptions,
  limits: RefreshLimits,
) {
  const totals = { embedded: 0, unchanged: 0, removed: 0, read: 'stale' as const, sources: 0, refused: [] as Part[] };
  // Marks made after this wait for the next run: a run ends.
  const { newest } = await repository.staleMarks();
  let after: StaleMark | undefined;
  while (newest) {
    const marks = await repository.marks(newest, MARKS_PER_PASS, after);
    if (marks.length === 0) break;
    after = marks.at(-1);
    const read = await markedSources(database, marks);
    const { refused, ...counts } = await rewrite(repository, read, embedder, gateway, limits);
    await repository.clearMarks(marks.filter((_, index) => !refused.some((part) => within(part.source, read.scopes[index]))));
    totals.embedded += counts.embedded;
    totals.unchanged += counts.unchanged;
    totals.removed += counts.removed;
    totals.sources += read.sources.length;
    totals.refused.push(...refused);
    if (marks.length < MARKS_PER_PASS) break;
  }
  return totals;
}

/**
 * Brings the index up to date with the platform's data. `all` reads every source (POST
 * /assistant/v1/index/refresh); `stale` reads only the sources marked stale (the scheduled
 * refresher), unless the index was never built or another embedder model built it: then every
 * source, since every chunk is to embed. The index never grows past `limits.maxChunks`: the sources
 * that would take it there are refused (logged, counted in `refused`).
 */
export async function refreshKnowledgeIndex(
  database: Database,
  embedder: ModelConnection,
  gateway: GatewayOptions,
  limits: RefreshLimits,
  what: 'all' | 'stale',
): Promise<RefreshOutcome> {
  const repository = new KnowledgeChunkRepository(database);
  const built = what === 'stale' && (await repository.lastRefresh())?.embedderModel === embedder.model;
  const { refused, ...outcome } = await (built ? refreshStale : refreshAll)(repository, database, embedder, gateway, limits);
  await repository.recordRefresh(embedder.model);
  const result = { ...outcome, refused: logRefused(refused, limits.maxChunks) };
  logger.info({ ...result, embedderModel: embedder.model }, 'knowledge index refreshed');
  return result;
}
