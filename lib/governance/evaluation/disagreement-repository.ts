import { count, desc, eq, lt } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { deleteSome } from '#lib/db/purge';
import { storableCopy } from '#lib/db/storable-text';
import type { Pagination } from '#lib/http/pagination';

import type { DisagreementFilters } from './disagreement';

export type DisagreementRow = Database['tables']['cueDisagreements']['$inferSelect'];
export type NewDisagreement = Omit<DisagreementRow, 'id' | 'createdAt'>;

export class DisagreementRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.cueDisagreements;
  }

  /** Records disagreements; one a re-run of the same report already recorded is skipped. */
  async record(disagreements: readonly NewDisagreement[]): Promise<void> {
    if (disagreements.length === 0) return;
    await this.database.db.insert(this.table).values(disagreements.map(storableCopy)).onConflictDoNothing();
  }

  /** Newest first. */
  async list(filters: DisagreementFilters, pagination: Pagination): Promise<{ rows: DisagreementRow[]; total: number }> {
    const t = this.table;
    const where = filters.policyId ? eq(t.entityId, filters.policyId) : undefined;
    const [rows, [{ total }]] = await Promise.all([
      this.database.db.select().from(t).where(where).orderBy(desc(t.id)).limit(pagination.limit).offset(pagination.offset),
      this.database.db.select({ total: count() }).from(t).where(where),
    ]);
    return { rows, total };
  }

  /** Deletes up to `limit` disagreements found before `before` (retention.disagreements); answers how many. */
  purgeOlder(before: Date, limit: number): Promise<number> {
    return deleteSome(this.database, this.table, lt(this.table.createdAt, before), limit);
  }
}
