import type { Database } from '#lib/db/client';
import { logger } from '#lib/logging/logger';

import { embed, type GatewayOptions } from '../llm-gateway';
import type { ModelConnection } from '../model-config-repository';
import { chunksOf } from './knowledge-chunk';
import { KnowledgeChunkRepository } from './knowledge-chunk-repository';
import { knowledgeSources } from './knowledge-sources';

export interface RefreshCounts {
  embedded: number;
  unchanged: number;
  removed: number;
}

/**
 * Brings the index up to date with the platform's data: chunks whose text (hash) or embedder
 * model changed are embedded again, `batchSize` per call, and saved batch by batch (a failure
 * keeps what was done); chunks of sources that are gone are removed.
 */
export async function refreshKnowledgeIndex(database: Database, embedder: ModelConnection, gateway: GatewayOptions, batchSize: number): Promise<RefreshCounts> {
  const repository = new KnowledgeChunkRepository(database);
  // Sources marked stale until now are taken into account: the sources are read after this.
  const { newest: marked } = await repository.staleMarks();
  const chunks = (await knowledgeSources(database)).flatMap(chunksOf);
  const stored = await repository.stored();
  // Vectors of two models are never compared: a chunk embedded by another model is embedded again.
  const stale = chunks.filter((chunk) => {
    const known = stored.get(chunk.key);
    return known?.contentHash !== chunk.contentHash || known.embedderModel !== embedder.model;
  });
  for (let start = 0; start < stale.length; start += batchSize) {
    const batch = stale.slice(start, start + batchSize);
    const vectors = await embed(
      embedder,
      batch.map((chunk) => `${chunk.source.title}\n${chunk.content}`),
      gateway,
    );
    await repository.save(batch, vectors, embedder.model);
  }
  const removed = await repository.removeAllBut(chunks.map((chunk) => chunk.key));
  await repository.recordRefresh(embedder.model);
  if (marked) await repository.clearStale(marked);
  const counts = { embedded: stale.length, unchanged: chunks.length - stale.length, removed };
  logger.info({ ...counts, embedderModel: embedder.model }, 'knowledge index refreshed');
  return counts;
}
