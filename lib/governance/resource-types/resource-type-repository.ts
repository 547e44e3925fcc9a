import { eq, getTableColumns, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { pageOf } from '#lib/db/page';
import type { Transaction } from '#lib/db/transaction';
import type { Pagination } from '#lib/http/pagination';

import { NO_DESCRIPTOR_CONFIGURATION, pageSizeOf, type ResourceTypeDefinition, type ResourceTypeRepresentation } from './resource-type';

export type ResourceTypeRow = Database['tables']['resourceTypes']['$inferSelect'];
type Row = ResourceTypeRow;

export function represent(row: Row): ResourceTypeRepresentation {
  return {
    name: row.name,
    displayName: row.displayName,
    descriptorConfiguration: {
      resourceNameField: row.resourceNameField ?? NO_DESCRIPTOR_CONFIGURATION,
      resourceDisplayNameFields: row.resourceDisplayNameFields,
      resourceFilterField: row.resourceFilterField,
      resourceOwnerField: row.resourceOwnerField,
      batchSize: pageSizeOf(row.batchSize),
    },
    resolverConfiguration: { url: row.resolverUrl, path: row.resolverPath },
    source: row.source,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    updatedAt: row.updatedAt.toISOString(),
    updatedBy: row.updatedBy,
  };
}

/** What a definition stores: the columns that say what the type is (not who wrote it, nor when). */
export const columnsOf = (definition: ResourceTypeDefinition) => ({
  displayName: definition.displayName,
  resourceNameField: definition.descriptor?.resourceNameField ?? null,
  resourceDisplayNameFields: definition.descriptor?.resourceDisplayNameFields ?? [],
  resourceFilterField: definition.descriptor?.resourceFilterField ?? null,
  resourceOwnerField: definition.descriptor?.resourceOwnerField ?? null,
  batchSize: definition.descriptor?.batchSize ?? null,
  resolverUrl: definition.resolver.url,
  resolverPath: definition.resolver.path,
});

/** A stored type as a definition (what registering it again would give). */
export function definitionOf(row: Row): ResourceTypeDefinition {
  return {
    name: row.name,
    displayName: row.displayName,
    descriptor:
      row.resourceNameField === null
        ? undefined
        : {
            resourceNameField: row.resourceNameField,
            resourceDisplayNameFields: row.resourceDisplayNameFields,
            resourceFilterField: row.resourceFilterField,
            resourceOwnerField: row.resourceOwnerField,
            batchSize: row.batchSize,
          },
    resolver: { url: row.resolverUrl, path: row.resolverPath },
  };
}

export type UpsertOutcome = 'created' | 'replaced' | 'unchanged';

export class ResourceTypeRepository {
  constructor(private readonly database: Database) {}

  private get table() {
    return this.database.tables.resourceTypes;
  }

  /**
   * Registers a type, replacing one of the same name in the same statement. A definition equal to
   * the stored one writes nothing, so registering the settings' types at every start is cheap.
   */
  async upsert(
    definition: ResourceTypeDefinition,
    source: 'settings' | 'api',
    subject: string,
    tx: Pick<Transaction, 'insert' | 'select'> = this.database.db,
  ): Promise<{ row: Row; outcome: UpsertOutcome }> {
    const { table } = this;
    const values = { ...columnsOf(definition), source, updatedBy: subject };
    const [changed] = await tx
      .insert(table)
      .values({ name: definition.name, ...values, createdBy: subject })
      .onConflictDoUpdate({
        target: table.name,
        set: { ...values, updatedAt: sql`now()` },
        setWhere: sql`(${table.displayName}, ${table.resourceNameField}, ${table.resourceDisplayNameFields}, ${table.resourceFilterField},
            ${table.resourceOwnerField}, ${table.batchSize}, ${table.resolverUrl}, ${table.resolverPath}, ${table.source})
          is distinct from (excluded.display_name, excluded.resource_name_field, excluded.resource_display_name_fields, excluded.resource_filter_field,
            excluded.resource_owner_field, excluded.batch_size, excluded.resolver_url, excluded.resolver_path, excluded.source)`,
      })
      // xmax is 0 on a row version created by an insert, not by an update.
      .returning({ ...getTableColumns(table), inserted: sql<boolean>`(xmax = 0)` });
    if (changed) {
      const { inserted, ...row } = changed;
      return { row, outcome: inserted ? 'created' : 'replaced' };
    }
    // No row came back: the conflict's update found nothing to change, so the row is there as it was.
    const [row] = await tx.select().from(table).where(eq(table.name, definition.name));
    if (!row) throw new Error(`The resource type ${definition.name} was neither written nor found`);
    return { row, outcome: 'unchanged' };
  }

  async find(name: string): Promise<Row | undefined> {
    const [row] = await this.database.db.select().from(this.table).where(eq(this.table.name, name));
    return row;
  }

  list(pagination: Pagination): Promise<{ rows: Row[]; total: number }> {
    return pageOf(this.database, this.table, this.table.name, pagination);
  }

  async delete(name: string, tx: Pick<Transaction, 'delete'> = this.database.db): Promise<boolean> {
    const deleted = await tx.delete(this.table).where(eq(this.table.name, name)).returning({ name: this.table.name });
    return deleted.length > 0;
  }
}
