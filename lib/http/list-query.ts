import { z } from 'zod';

const SORT_ORDERS = ['asc', 'desc'] as const;

/** `sort-by` (one of `fields`, as `description` tells the OpenAPI document; absent: the list's own order) and `sort-order` (absent: `asc`). */
export const sortQuery = <T extends readonly [string, ...string[]]>(fields: T, description: string) => ({
  'sort-by': z
    .enum(fields, { error: `sort-by must be one of ${fields.join(', ')}` })
    .optional()
    .meta({ description }),
  'sort-order': z
    .enum(SORT_ORDERS, { error: `sort-order must be one of ${SORT_ORDERS.join(', ')}` })
    .optional()
    .meta({ description: 'The direction of sort-by (asc by default); its ties stay ascending' }),
});

/** A comma list of UUIDs (`id-in=a,b`), at most `max` of them. */
export const uuidListQuery = (name: string, max: number) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.uuid({ error: `${name} must be a comma list of UUIDs` }))
        .min(1, `${name} must name at least one id`)
        .max(max, `${name} names more than ${max} ids`),
    );

/**
 * `alias` is another spelling of the parameter `name` (a peer platform's): the refinement of a query
 * object refusing both with different values, naming the alias.
 */
export const sameAsAlias = (alias: string, name: string) => (query: Readonly<Record<string, unknown>>, context: z.RefinementCtx) => {
  if (query[alias] !== undefined && query[name] !== undefined && query[alias] !== query[name])
    context.addIssue({ code: 'custom', path: [alias], message: `${alias} is another name for ${name}: give one of them, or the same value to both` });
};
