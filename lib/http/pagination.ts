import { z } from 'zod';

import { wholeNumberQuery } from './query-values';

const DEFAULT_LIMIT = 25;
/** Above the contract's 100: clients of the peer platform ask for up to 500 (docs/governance.md, "Clients of other governance platforms"). */
export const MAX_LIMIT = 500;

/** `limit` (default 25, max 500) and `offset` of every list endpoint. */
export const paginationQuery = z.object({
  limit: wholeNumberQuery('limit', 1, MAX_LIMIT).default(DEFAULT_LIMIT),
  offset: wholeNumberQuery('offset', 0, Number.MAX_SAFE_INTEGER).default(0),
});

export type Pagination = z.output<typeof paginationQuery>;

/** The list envelope of the API contract. */
export const listOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      data: z.array(item),
      meta: z.object({ pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }) }),
    })
    .meta({ id });

export function listBody<T>(data: T[], pagination: Pagination, total: number) {
  return { data, meta: { pagination: { limit: pagination.limit, offset: pagination.offset, total } } };
}
