import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { inTransaction } from '#lib/db/transaction';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { testDatabase, testSettings } from '../support/database';

// lib/db/prepared-statements.ts: a statement of drizzle's query builder is prepared once per
// connection and then bound and run in one round trip, in a transaction too.

const SCHEMA = 'it_prepared_statements';
let database: Database;

beforeAll(async () => {
  await runStartupTasks(await testSettings(SCHEMA));
  // One connection: the statements it prepared are the ones pg_prepared_statements shows it.
  database = await testDatabase(SCHEMA, 'computational-governance-platform.database.thread-pool-size = 1');
});

afterAll(async () => {
  await database.close();
});

/** The statements the connection prepared whose text mentions `table`. */
const preparedOn = async (table: string) =>
  (await database.sql.unsafe(`select statement from pg_prepared_statements`)).filter((row) => String(row.statement).includes(`"${table}"`));

describe("drizzle's statements", () => {
  it('are prepared once per connection, outside transactions and in them', async () => {
    const t = database.tables.resourceTypes;
    for (const name of ['one', 'two', 'three']) await database.db.select().from(t).where(eq(t.name, name));
    expect(await preparedOn('resource_types')).toHaveLength(1);

    const e = database.tables.environments;
    await inTransaction(database, 'test', async (tx) => {
      for (const name of ['one', 'two']) await tx.select().from(e).where(eq(e.name, name));
    });
    expect(await preparedOn('environments')).toHaveLength(1);
  });

  it('are not prepared with database.prepared-statements = false (a pooler that cannot keep them)', async () => {
    const unprepared = await testDatabase(SCHEMA, 'computational-governance-platform.database { thread-pool-size = 1, prepared-statements = false }');
    try {
      const t = unprepared.tables.resourceTypes;
      await unprepared.db.select().from(t).where(eq(t.name, 'one'));
      await inTransaction(unprepared, 'test', (tx) => tx.select().from(t).where(eq(t.name, 'two')));
      expect(await unprepared.sql.unsafe(`select count(*)::int as count from pg_prepared_statements`)).toEqual([{ count: 0 }]);
    } finally {
      await unprepared.close();
    }
  });
});
