import type postgres from 'postgres';

/**
 * postgres.js as drizzle receives it, every statement prepared (named, kept per connection by its
 * text), in transactions too. drizzle's query builder asks postgres.js not to prepare what it did
 * not name (`prepare: false`), and postgres.js then asks the database for the parameters' types
 * before each execution: a second round trip for every statement with parameters. Prepared, a
 * statement run before on the connection is bound and executed in one (as postgres.js's own
 * queries, and drizzle's `execute`, already are).
 */
export function preparedStatements<S extends postgres.Sql | postgres.TransactionSql>(sql: S): S {
  return new Proxy(sql, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'unsafe')
        return (query: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) => value.call(target, query, params, { ...options, prepare: true });
      if (property === 'begin')
        return (...args: unknown[]) => {
          const work = args.at(-1) as (transaction: postgres.TransactionSql) => unknown;
          return value.call(target, ...args.slice(0, -1), (transaction: postgres.TransactionSql) => work(preparedStatements(transaction)));
        };
      return value;
    },
  });
}
