/** How the work of one `evaluate` call is cut into batches. */
export interface PlanLimits {
  /** Most bytes of CUE (descriptors once per policy, plus the scripts) in one run, so a run stays far below the timeout. */
  readonly maxRunBytes: number;
  /** Below this, work is not split further just to use more workers (a run costs ~80 ms on its own). */
  readonly minRunBytes: number;
  /** Runs the runner makes at once. */
  readonly concurrency: number;
}

export interface PlannedEntity {
  readonly index: number;
  readonly requireConcrete: boolean;
  /** Can share a run with other policies (see PolicySource.selfContained). */
  readonly selfContained: boolean;
  readonly scriptBytes: number;
}

export interface PlannedResource {
  readonly index: number;
  /** Size of its descriptor as JSON. */
  readonly bytes: number;
}

export interface PlannedBatch {
  readonly requireConcrete: boolean;
  readonly entities: readonly number[];
  readonly resources: readonly number[];
}

/** Consecutive resources, each chunk at most `target` bytes (a larger descriptor goes alone). */
function chunkResources(resources: readonly PlannedResource[], target: number): { resources: number[]; bytes: number }[] {
  const chunks: { resources: number[]; bytes: number }[] = [];
  let current = { resources: [] as number[], bytes: 0 };
  for (const { index, bytes } of resources) {
    if (current.resources.length > 0 && current.bytes + bytes > target) {
      chunks.push(current);
      current = { resources: [], bytes: 0 };
    }
    current.resources.push(index);
    current.bytes += bytes;
  }
  if (current.resources.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Batches of one mode each (`vet -c` and conflicts-only need different commands): resources in
 * chunks, and for each chunk the self-contained policies packed together while the run stays
 * within its share of the work; other policies run alone. The share is the whole work divided by
 * the runner's concurrency, within [minRunBytes, maxRunBytes], so that every worker gets some.
 */
export function planBatches(entities: readonly PlannedEntity[], resources: readonly PlannedResource[], limits: PlanLimits): PlannedBatch[] {
  if (entities.length === 0 || resources.length === 0) return [];
  const allResourceBytes = resources.reduce((sum, resource) => sum + resource.bytes, 0);
  const work = entities.reduce((sum, entity) => sum + allResourceBytes + entity.scriptBytes, 0);
  const target = Math.min(limits.maxRunBytes, Math.max(limits.minRunBytes, Math.ceil(work / limits.concurrency)));
  const batches: PlannedBatch[] = [];
  for (const chunk of chunkResources(resources, target)) {
    for (const requireConcrete of [true, false]) {
      const group = entities.filter((entity) => entity.requireConcrete === requireConcrete);
      let packed: number[] = [];
      let packedBytes = 0;
      const flush = () => {
        if (packed.length > 0) batches.push({ requireConcrete, entities: packed, resources: chunk.resources });
        packed = [];
        packedBytes = 0;
      };
      for (const entity of group) {
        const cost = chunk.bytes + entity.scriptBytes;
        if (!entity.selfContained) {
          batches.push({ requireConcrete, entities: [entity.index], resources: chunk.resources });
          continue;
        }
        if (packed.length > 0 && packedBytes + cost > target) flush();
        packed.push(entity.index);
        packedBytes += cost;
      }
      flush();
    }
  }
  return batches;
}
