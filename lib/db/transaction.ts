import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';

import type { Database } from './client';
import { holdingConnection } from './leak-detection';

export type Transaction = Parameters<Parameters<PostgresJsDatabase['transaction']>[0]>[0];

/** Runs `work` in one transaction; `holder` names it in leak warnings. */
export function inTransaction<T>(database: Database, holder: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return holdingConnection(database, holder, () => database.db.transaction(work));
}
