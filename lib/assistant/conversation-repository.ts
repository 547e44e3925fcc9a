import { and, asc, desc, eq, lte, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { deleteSome } from '#lib/db/purge';
import { inTransaction } from '#lib/db/transaction';

/** A question and the answer it got. */
export interface ConversationTurn {
  readonly query: string;
  readonly answer: string;
}

/** Chat conversations in PostgreSQL: each the caller's own, keeping its last `maxTurns` turns. */
export class ConversationRepository {
  constructor(
    private readonly database: Database,
    private readonly maxTurns: number,
  ) {}

  /** The kept turns of the caller's conversation, oldest first; undefined when it has none of that id. */
  async turns(id: string, subject: string): Promise<ConversationTurn[] | undefined> {
    const { conversations, conversationTurns: turns } = this.database.tables;
    const [conversation] = await this.database.db
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(eq(conversations.id, id), eq(conversations.subject, subject)));
    if (!conversation) return undefined;
    return this.database.db.select({ query: turns.query, answer: turns.answer }).from(turns).where(eq(turns.conversationId, id)).orderBy(asc(turns.turn));
  }

  /**
   * Adds a turn, to a new conversation when `id` is undefined (its id is returned), and drops the
   * turns beyond the last `maxTurns`, in one transaction.
   */
  async append(id: string | undefined, subject: string, turn: ConversationTurn): Promise<string> {
    const { conversations, conversationTurns: turns } = this.database.tables;
    return inTransaction(this.database, 'conversation turn', async (tx) => {
      const conversationId = id ?? (await tx.insert(conversations).values({ subject }).returning({ id: conversations.id }))[0].id;
      // Two answers of one conversation at once are numbered one after the other.
      await tx.select({ id: conversations.id }).from(conversations).where(eq(conversations.id, conversationId)).for('update');
      const [last] = await tx.select({ turn: turns.turn }).from(turns).where(eq(turns.conversationId, conversationId)).orderBy(desc(turns.turn)).limit(1);
      const number = (last?.turn ?? 0) + 1;
      await tx.insert(turns).values({ conversationId, turn: number, ...turn });
      await tx.delete(turns).where(and(eq(turns.conversationId, conversationId), lte(turns.turn, sql`${number - this.maxTurns}`)));
      return conversationId;
    });
  }

  /** Deletes up to `limit` conversations with no turn since `before` (retention.conversations), their turns with them; answers how many. */
  purgeIdle(before: Date, limit: number): Promise<number> {
    const { conversations, conversationTurns: turns } = this.database.tables;
    return deleteSome(
      this.database,
      conversations,
      sql`${conversations.createdAt} < ${before.toISOString()}::timestamptz and not exists (select 1 from ${turns} t where t.conversation_id = ${conversations.id} and t.created_at >= ${before.toISOString()}::timestamptz)`,
      limit,
    );
  }
}
