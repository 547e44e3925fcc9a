import type postgres from 'postgres';

import { isTracing, traced } from '#lib/observability/tracing';

/** The subsegment of one query drizzle sends (lib/observability/tracing.ts): no text, no parameters. */
const QUERY_SEGMENT = '## database query';

/**
 * postgres.js as drizzle receives it, each query drizzle sends (through `unsafe`, which it always
 * awaits at once) traced as a subsegment. Where no trace is sent, postgres.js itself.
 * Queries inside a transaction are traced with it (lib/db/leak-detection.ts holdingConnection).
 */
export function tracedQueries(sql: postgres.Sql): postgres.Sql {
  // Whether the process traces is settled when lib/observability/tracing.ts loads, before any pool opens.
  if (!isTracing()) return sql;
  return new Proxy(sql, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'unsafe' || typeof value !== 'function') return value;
      return (...args: unknown[]) => tracedQuery(value.apply(target, args) as postgres.PendingQuery<postgres.Row[]>);
    },
  });
}

/** The query, its execution (which starts when it is awaited) in a subsegment; `.values()` returns the same query. */
function tracedQuery<Q extends postgres.PendingQuery<postgres.Row[]>>(query: Q): Q {
  const then = query.then.bind(query);
  type Rows = Awaited<Q>;
  return Object.assign(query, {
    then: ((onFulfilled, onRejected) =>
      traced(QUERY_SEGMENT, () => new Promise<Rows>((resolve, reject) => then(resolve as never, reject))).then(onFulfilled, onRejected)) as Q['then'],
  });
}
