import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';

import { testDatabase } from '../support/database';

/**
 * The server-side bounds every pooled connection starts with: a transaction that waits on a lock gives up, a
 * statement that runs too long is cancelled, and a transaction left idle (its worker killed) is ended by
 * PostgreSQL, which frees what it locked.
 */
describe('database timeouts', () => {
  const SCHEMA = 'database_timeouts';
  let database: Database;
  beforeAll(async () => {
    database = await testDatabase(
      SCHEMA,
      'computational-governance-platform.database { thread-pool-size = 3, lock-timeout = "300 ms", statement-timeout = "1 second", idle-in-transaction-timeout = "1 second" }',
    );
    await database.sql.unsafe(`create schema if not exists ${SCHEMA}; create table if not exists ${SCHEMA}.rows (id int primary key)`);
    await database.sql.unsafe(`insert into ${SCHEMA}.rows values (1) on conflict do nothing`);
  });
  afterAll(async () => {
    await database.sql.unsafe(`drop schema ${SCHEMA} cascade`);
    await database.close();
  });

  it('start every connection with the configured timeouts', async () => {
    const [row] = await database.sql`select current_setting('statement_timeout') as statement, current_setting('lock_timeout') as lock,
      current_setting('idle_in_transaction_session_timeout') as idle`;
    expect(row).toEqual({ statement: '1s', lock: '300ms', idle: '1s' });
  });

  it('end a wait on a lock another transaction holds', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = database.sql.begin(async (tx) => {
      await tx.unsafe(`select id from ${SCHEMA}.rows where id = 1 for update`);
      await held;
    });
    try {
      const waiter = database.sql.begin((tx) => tx.unsafe(`select id from ${SCHEMA}.rows where id = 1 for update`));
      await expect(waiter).rejects.toMatchObject({ code: '55P03' }); // lock_not_available
    } finally {
      release();
      await holder;
    }
  });

  it('cancel a statement that runs too long', async () => {
    await expect(database.sql`select pg_sleep(5)`).rejects.toMatchObject({ code: '57014' }); // query_canceled
  });

  it('end a transaction left idle, freeing its lock for the others', async () => {
    const abandoned = database.sql.begin(async (tx) => {
      await tx.unsafe(`select id from ${SCHEMA}.rows where id = 1 for update`);
      // A worker that stopped here (killed, frozen) without ending its transaction.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await tx.unsafe('select 1');
    });
    const ended = abandoned.catch((error: unknown) => error);
    // The server ends the idle transaction: its connection is closed and the lock is free again.
    expect(await ended).toMatchObject({ code: expect.stringMatching(/^(25P03|57P01|CONNECTION_CLOSED|CONNECTION_ENDED)$/) });
    const [row] = await database.sql.begin((tx) => tx.unsafe(`select id from ${SCHEMA}.rows where id = 1 for update nowait`));
    expect(row).toEqual({ id: 1 });
  });
});
