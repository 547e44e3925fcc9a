import { fetchPerimeterPage, type PerimeterPage, type ResolverRetry } from '#lib/platform/perimeter-resolver';

import type { RunContext } from './evaluation-runner';

/**
 * Pages are evaluated, and written, together until one engine call has this many resources: bench
 * (e) measured CUE ~35 % faster on calls of 100 descriptors of ~4.7 KB than on calls of 50 (fewer,
 * fuller runs), and a publish with the worker running ~20 % faster with groups of 250 than of 100
 * (fewer transactions, each written while the next group is evaluated). Engines called once per
 * pair over the network (remote, LLM: 4 to 8 calls at a time) keep groups of 100, so that a group
 * ends well within the minute a worker keeps for handing the rest on.
 */
export const RESOURCES_PER_CALL = { inProcess: 250, called: 100 } as const;

/** The group size for the entities a task evaluates: in process when every one is CUE. */
export const resourcesPerCall = (entities: readonly { engine: string | null }[]): number =>
  entities.every((entity) => entity.engine === 'cue') ? RESOURCES_PER_CALL.inProcess : RESOURCES_PER_CALL.called;

export interface PageGroup {
  pages: PerimeterPage[];
  /** The short page that ends the perimeter was read. */
  last: boolean;
  /** A page after the first could not be read: the group stops before it, and it fails once the others are kept. */
  unreadable?: { offset: number; error: unknown };
}

/** Reads pages from `offset` until the group holds `resources` resources (resourcesPerCall) or the last page; the first page's failure throws. */
export async function readPages(ctx: RunContext, offset: number, resources: number): Promise<PageGroup> {
  const group: PageGroup = { pages: [], last: false };
  const size = ctx.perimeter.batchSize;
  while (!group.last && group.pages.reduce((sum, page) => sum + page.resources.length, 0) < resources) {
    const at = offset + group.pages.length * size;
    try {
      const { onResolverRetry } = ctx;
      const onRetry = onResolverRetry && ((retry: ResolverRetry) => onResolverRetry(at, retry));
      const page = await fetchPerimeterPage(ctx.perimeter, ctx.environment, at, ctx.timeouts, ctx.signal, onRetry);
      group.pages.push(page);
      group.last = page.resources.length < size;
    } catch (error) {
      if (group.pages.length === 0) throw error;
      return { ...group, unreadable: { offset: at, error } };
    }
  }
  return group;
}
