import type { Database } from '#lib/db/client';
import { tableExists } from '#lib/db/table-exists';

/**
 * Where retrieval ranks the vectors: in PostgreSQL with pgvector's `<=>` over the generated
 * `embedding_vector` column (`schema` is the extension's), or in the function from an in-memory
 * copy of the `real[]` column.
 */
export type VectorStore = { readonly type: 'pgvector'; readonly schema: string } | { readonly type: 'memory' };

const COLUMN = 'embedding_vector';

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** The schema pgvector was created in, if it was. */
async function extensionSchema(database: Database): Promise<string | undefined> {
  const [row] = await database.sql<{ schema: string }[]>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'vector'`;
  return row?.schema;
}

async function hasVectorColumn(database: Database): Promise<boolean> {
  const [row] = await database.sql`
    select 1 from information_schema.columns
    where table_schema = ${database.schemaName} and table_name = 'knowledge_chunks' and column_name = ${COLUMN}`;
  return row !== undefined;
}

/** pgvector when the extension is created and the knowledge index has its column, else memory. */
async function detect(database: Database): Promise<VectorStore> {
  const schema = await extensionSchema(database);
  return schema !== undefined && (await hasVectorColumn(database)) ? { type: 'pgvector', schema } : { type: 'memory' };
}

const stores = new WeakMap<Database, Promise<VectorStore>>();

/** The store of this pool's database, looked up once per pool (a column added later counts from the next container). */
export function vectorStoreOf(database: Database): Promise<VectorStore> {
  let store = stores.get(database);
  if (!store) {
    store = detect(database);
    stores.set(database, store);
    store.catch(() => stores.delete(database));
  }
  return store;
}

const inMemory = (reason: string) => `real[], ranked in memory (${reason})`;

/**
 * The start-up task: creates pgvector when this server has it and the role may (`create extension
 * vector`), then adds `embedding_vector`, a stored column generated from `embedding`, so that every
 * write keeps it (existing rows are converted once, here). Never fails: without pgvector the
 * `real[]` column serves, ranked in memory. Answers which store retrieval uses, and why.
 */
export async function prepareVectorStore(database: Database): Promise<string> {
  if (!(await tableExists(database, 'knowledge_chunks'))) return inMemory('no knowledge index table');
  const [available] = await database.sql`select 1 from pg_available_extensions where name = 'vector'`;
  if (!available) return inMemory('pgvector is not installed on this PostgreSQL server');
  let failure = '';
  try {
    await database.sql`create extension if not exists vector`;
  } catch (error) {
    failure = (error as Error).message;
  }
  // Two start-ups on one database may race to create it: the loser finds it created.
  const schema = await extensionSchema(database);
  if (schema === undefined) return inMemory(`create extension vector failed: ${failure}`);
  if (!(await hasVectorColumn(database))) {
    await database.sql.unsafe(
      `alter table ${quote(database.schemaName)}.knowledge_chunks ` +
        `add column ${COLUMN} ${quote(schema)}.vector generated always as (embedding::${quote(schema)}.vector) stored`,
    );
  }
  return 'pgvector';
}
