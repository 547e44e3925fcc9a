import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

import type { Database } from './client';

/**
 * Deletes at most `limit` rows of `table` that meet `condition`, in one short statement (a purge
 * of a large table runs as many of these, never one long lock); answers how many it deleted.
 */
export async function deleteSome(database: Database, table: PgTable, condition: SQL, limit: number): Promise<number> {
  const deleted = await database.db.execute(sql`delete from ${table} where ctid = any(array(select ctid from ${table} where ${condition} limit ${limit}))`);
  return deleted.count ?? 0;
}
