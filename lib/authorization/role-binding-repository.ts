import { arrayOverlaps, desc, eq, or } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';

import type { RoleBindingInput } from './role-binding';

export type RoleBindingRow = Database['tables']['roleBindings']['$inferSelect'];

/** Role bindings kept in the database (POST /role-bindings). */
export class RoleBindingRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.roleBindings;
  }

  async create(input: RoleBindingInput, createdBy: string, tx: Pick<Transaction, 'insert'> = this.database.db): Promise<RoleBindingRow> {
    const [row] = await tx
      .insert(this.table)
      .values({
        subjects: input.subjects,
        groups: input.groups,
        roles: input.roles,
        resourceTypes: input.resourceTypes ?? null,
        environments: input.environments ?? null,
        createdBy,
      })
      .returning();
    return row;
  }

  async find(id: string): Promise<RoleBindingRow | undefined> {
    const [row] = await this.database.db.select().from(this.table).where(eq(this.table.id, id));
    return row;
  }

  /** Newest first. */
  async list(): Promise<RoleBindingRow[]> {
    return this.database.db.select().from(this.table).orderBy(desc(this.table.createdAt), desc(this.table.id));
  }

  /** The bindings that name one of the subjects (a caller's subject, and a Basic caller's user name) or one of the groups. */
  async matching(subjects: readonly string[], groups: readonly string[]): Promise<RoleBindingRow[]> {
    const t = this.table;
    const bySubject = arrayOverlaps(t.subjects, [...subjects]);
    return this.database.db
      .select()
      .from(t)
      .where(groups.length > 0 ? or(bySubject, arrayOverlaps(t.groups, [...groups])) : bySubject);
  }

  /** The subjects and groups of the bindings that give one of the roles (whom to notify). */
  async holdersOf(roles: readonly string[]): Promise<Pick<RoleBindingRow, 'subjects' | 'groups' | 'resourceTypes' | 'environments' | 'roles'>[]> {
    const t = this.table;
    return this.database.db
      .select({ subjects: t.subjects, groups: t.groups, resourceTypes: t.resourceTypes, environments: t.environments, roles: t.roles })
      .from(t)
      .where(arrayOverlaps(t.roles, [...roles]));
  }

  /** False when no binding has the id. */
  async delete(id: string, tx: Pick<Transaction, 'delete'> = this.database.db): Promise<boolean> {
    const rows = await tx.delete(this.table).where(eq(this.table.id, id)).returning({ id: this.table.id });
    return rows.length > 0;
  }
}
