import { eq, getTableColumns, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';

import { ApiKeyDecryptionError, decryptApiKey, encryptApiKey, type KeyRing, maskApiKey, needsReencryption } from './api-key-encryption';
import type { ModelConfigInput, ModelConfigRepresentation, ModelKind } from './model-config';

type Row = Database['tables']['modelConfigurations']['$inferSelect'];

/** A stored configuration with its API key decrypted, for calling the provider. Never returned to callers. */
export interface ModelConnection {
  readonly endpoint: string;
  readonly apiVersion: string;
  readonly model: string;
  readonly deployment: string;
  readonly customHeader?: string;
  readonly apiKey: string;
}

export function toConnection(input: ModelConfigInput): ModelConnection {
  return {
    endpoint: input.endpoint,
    apiVersion: input.api_version,
    model: input.model,
    deployment: input.deployment,
    customHeader: input.custom_header,
    apiKey: input.api_key,
  };
}

export class ModelConfigRepository {
  constructor(
    private readonly database: Database,
    private readonly keys: KeyRing,
  ) {}

  private get table() {
    return this.database.tables.modelConfigurations;
  }

  private represent(row: Row): ModelConfigRepresentation {
    return {
      provider: 'hosted_llm',
      api_key: row.apiKeyMasked,
      endpoint: row.endpoint,
      api_version: row.apiVersion,
      model: row.model,
      deployment: row.deployment,
      custom_header: row.customHeader,
      created_at: row.createdAt.toISOString(),
      created_by: row.createdBy,
      updated_at: row.updatedAt.toISOString(),
      updated_by: row.updatedBy,
    };
  }

  private async row(kind: ModelKind): Promise<Row | undefined> {
    const [row] = await this.database.db.select().from(this.table).where(eq(this.table.kind, kind));
    return row;
  }

  async find(kind: ModelKind): Promise<ModelConfigRepresentation | undefined> {
    const row = await this.row(kind);
    return row && this.represent(row);
  }

  async connection(kind: ModelKind): Promise<ModelConnection | undefined> {
    const row = await this.row(kind);
    if (!row) return undefined;
    return {
      endpoint: row.endpoint,
      apiVersion: row.apiVersion,
      model: row.model,
      deployment: row.deployment,
      customHeader: row.customHeader ?? undefined,
      apiKey: decryptApiKey(row.apiKeyCiphertext, this.keys),
    };
  }

  /** An API key encrypted as a stored one is (a four-eyes request carries it so until it is decided), and back. */
  seal(apiKey: string): string {
    return encryptApiKey(apiKey, this.keys);
  }

  unseal(sealed: string): string {
    return decryptApiKey(sealed, this.keys);
  }

  /** Stores the whole configuration in one statement, replacing any earlier one. */
  async save(
    kind: ModelKind,
    input: ModelConfigInput,
    subject: string,
    tx: Pick<Transaction, 'insert'> = this.database.db,
  ): Promise<{ config: ModelConfigRepresentation; created: boolean }> {
    const values = {
      provider: input.provider,
      apiKeyCiphertext: encryptApiKey(input.api_key, this.keys),
      apiKeyMasked: maskApiKey(input.api_key),
      endpoint: input.endpoint,
      apiVersion: input.api_version,
      model: input.model,
      deployment: input.deployment,
      customHeader: input.custom_header ?? null,
      updatedBy: subject,
    };
    const [{ inserted, ...row }] = await tx
      .insert(this.table)
      .values({ kind, ...values, createdBy: subject })
      .onConflictDoUpdate({ target: this.table.kind, set: { ...values, updatedAt: sql`now()` } })
      // xmax is 0 on a row version created by an insert, not by an update.
      .returning({ ...getTableColumns(this.table), inserted: sql<boolean>`(xmax = 0)` });
    return { config: this.represent(row), created: inserted };
  }

  /**
   * Rewrites keys stored under a previous encryption key with the current one. A key no configured
   * key can read is left alone (and reported): saving that configuration again replaces it.
   */
  async reencryptKeys(): Promise<{ reencrypted: number; unreadable: ModelKind[] }> {
    const result = { reencrypted: 0, unreadable: [] as ModelKind[] };
    for (const row of await this.database.db.select().from(this.table)) {
      if (!needsReencryption(row.apiKeyCiphertext, this.keys)) continue;
      let plaintext: string;
      try {
        plaintext = decryptApiKey(row.apiKeyCiphertext, this.keys);
      } catch (error) {
        if (!(error instanceof ApiKeyDecryptionError)) throw error;
        result.unreadable.push(row.kind);
        continue;
      }
      await this.database.db
        .update(this.table)
        .set({ apiKeyCiphertext: encryptApiKey(plaintext, this.keys) })
        .where(eq(this.table.kind, row.kind));
      result.reencrypted++;
    }
    return result;
  }
}
