import { and, eq, lt } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { deleteSome } from '#lib/db/purge';
import type { Transaction } from '#lib/db/transaction';

import type { LlmAnswer, LlmAnswerKey, LlmAnswerStore } from './llm-answer-store';

export class LlmAnswerRepository implements LlmAnswerStore {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.llmAnswers;
  }

  async find(key: LlmAnswerKey): Promise<LlmAnswer | undefined> {
    const t = this.table;
    const [row] = await this.database.db
      .select({ model: t.model, answeredBy: t.answeredBy, satisfiesPolicy: t.satisfiesPolicy, errors: t.errors, suggestions: t.suggestions })
      .from(t)
      .where(and(eq(t.entityId, key.entityId), eq(t.entityVersion, key.entityVersion), eq(t.descriptorHash, key.descriptorHash)));
    return row;
  }

  async save(key: LlmAnswerKey, answer: LlmAnswer): Promise<void> {
    const t = this.table;
    await this.database.db
      .insert(t)
      .values({ ...key, ...answer })
      .onConflictDoUpdate({ target: [t.entityId, t.entityVersion, t.descriptorHash], set: { ...answer, createdAt: new Date() } });
  }

  /** Drops every answer of an entity (deleted with it). */
  async forget(entityId: string, tx: Pick<Transaction, 'delete'> = this.database.db): Promise<void> {
    await tx.delete(this.table).where(eq(this.table.entityId, entityId));
  }

  /** Deletes up to `limit` answers given before `before` (retention.llm-answers); answers how many. */
  purgeOlder(before: Date, limit: number): Promise<number> {
    return deleteSome(this.database, this.table, lt(this.table.createdAt, before), limit);
  }
}
