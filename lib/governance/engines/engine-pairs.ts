import type { EngineEntity, EngineResource, EngineResult } from './engine';

/**
 * Judges every (entity, resource) pair, `concurrency` calls in flight at most, for the engines that
 * judge one pair per call (remote, llm): `results[entityIndex][resourceIndex]`.
 */
export async function judgeEachPair(
  entities: readonly EngineEntity[],
  resources: readonly EngineResource[],
  concurrency: number,
  judge: (entity: EngineEntity, resource: EngineResource) => Promise<EngineResult>,
): Promise<EngineResult[][]> {
  const results = entities.map(() => new Array<EngineResult>(resources.length));
  const pairs = entities.flatMap((entity, e) => resources.map((resource, r) => ({ entity, resource, e, r })));
  let next = 0;
  const lane = async () => {
    while (next < pairs.length) {
      const { entity, resource, e, r } = pairs[next++];
      results[e][r] = await judge(entity, resource);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, pairs.length) }, lane));
  return results;
}
