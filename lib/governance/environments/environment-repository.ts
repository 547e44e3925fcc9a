import { asc, notInArray } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { pageOf } from '#lib/db/page';
import { inTransaction } from '#lib/db/transaction';
import type { Pagination } from '#lib/http/pagination';

import type { PulledEnvironment } from './environment-fetch';

type Row = Database['tables']['environments']['$inferSelect'];

export class EnvironmentRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.environments;
  }

  /** Makes the stored list exactly `environments`, in one transaction. */
  async replaceAll(environments: PulledEnvironment[], source: Row['source']): Promise<void> {
    const { table } = this;
    const names = [...new Set(environments.map((environment) => environment.name))];
    await inTransaction(this.database, 'environments refresh', async (tx) => {
      await tx.delete(table).where(names.length > 0 ? notInArray(table.name, names) : undefined);
      for (const environment of environments) {
        const values = { name: environment.name, details: environment.details, source, refreshedAt: new Date() };
        await tx.insert(table).values(values).onConflictDoUpdate({ target: table.name, set: values });
      }
    });
  }

  list(pagination: Pagination): Promise<{ rows: Row[]; total: number }> {
    return pageOf(this.database, this.table, this.table.name, pagination);
  }

  async names(): Promise<string[]> {
    return (await this.database.db.select({ name: this.table.name }).from(this.table).orderBy(asc(this.table.name))).map((row) => row.name);
  }
}
