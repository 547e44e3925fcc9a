import { type AnyColumn, asc, count } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

import type { Database } from './client';

/** Which rows of a list to read: at most `limit`, after skipping `offset` (the API's pagination is one). */
export interface PageRequest {
  readonly limit: number;
  readonly offset: number;
}

/** One page of a table in the order of `orderBy`, and how many rows there are in all. */
export async function pageOf<T extends PgTable>(
  database: Database,
  table: T,
  orderBy: AnyColumn,
  pagination: PageRequest,
): Promise<{ rows: T['$inferSelect'][]; total: number }> {
  const [rows, [{ total }]] = await Promise.all([
    database.db
      .select()
      .from(table as PgTable)
      .orderBy(asc(orderBy))
      .limit(pagination.limit)
      .offset(pagination.offset),
    database.db.select({ total: count() }).from(table as PgTable),
  ]);
  return { rows: rows as T['$inferSelect'][], total };
}
