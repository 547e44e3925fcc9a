import type { Database } from './client';

/** True when the configured schema has the table (it may not, when migrate-on-start is off). */
export async function tableExists(database: Database, table: string): Promise<boolean> {
  const qualified = `"${database.schemaName}"."${table}"`;
  const [{ exists }] = await database.sql<{ exists: boolean }[]>`select to_regclass(${qualified}) is not null as exists`;
  return exists;
}
