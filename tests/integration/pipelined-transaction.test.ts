import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { inPipelinedTransaction } from '#lib/db/transaction';

import { testDatabase } from '../support/database';

// lib/db/transaction.ts inPipelinedTransaction: begin is sent with the work's first statements, and
// the work decides at its end whether what it wrote is kept. One connection in the pool, so that a
// connection left inside a transaction would be the next call's.

const SCHEMA = 'it_pipelined_transaction';
let database: Database;
const rows = async () => (await database.sql.unsafe(`select id from ${SCHEMA}.t order by id`)).map(({ id }) => id as number);
const insert = (tx: { execute: Database['db']['execute'] }, id: number) => tx.execute(sql`insert into ${sql.raw(SCHEMA)}.t (id) values (${id})`);

beforeAll(async () => {
  database = await testDatabase(SCHEMA, 'computational-governance-platform.database.thread-pool-size = 1');
  await database.sql.unsafe(`create schema if not exists ${SCHEMA}; drop table if exists ${SCHEMA}.t; create table ${SCHEMA}.t (id int primary key)`);
});

afterAll(async () => {
  await database.sql.unsafe(`drop schema ${SCHEMA} cascade`);
  await database.close();
});

describe('a pipelined transaction', () => {
  it('keeps every statement of work that commits, and answers its value', async () => {
    const done = await inPipelinedTransaction(database, 'test', async (tx) => {
      await Promise.all([insert(tx, 1), insert(tx, 2)]);
      return { commit: true, value: 'kept' };
    });
    expect(done).toEqual({ commit: true, value: 'kept' });
    expect(await rows()).toEqual([1, 2]);
  });

  it('keeps nothing of work that answers not to commit (it read something that made its writes stale)', async () => {
    await inPipelinedTransaction(database, 'test', async (tx) => {
      await insert(tx, 3);
      return { commit: false, value: undefined };
    });
    expect(await rows()).toEqual([1, 2]);
  });

  it('keeps nothing when a statement fails, throws its error, and leaves the connection out of any transaction', async () => {
    await expect(
      inPipelinedTransaction(database, 'test', async (tx) => {
        await Promise.all([insert(tx, 4), insert(tx, 1), insert(tx, 5)]);
        return { commit: true, value: undefined };
      }),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '23505' }) });
    expect(await rows()).toEqual([1, 2]);
    // The pool's one connection is not in a transaction: a statement outside one commits at once.
    await insert(database.db, 6);
    const other = await testDatabase(SCHEMA);
    try {
      expect((await other.sql.unsafe(`select id from ${SCHEMA}.t order by id`)).map(({ id }) => id)).toEqual([1, 2, 6]);
    } finally {
      await other.close();
    }
  });

  it('keeps nothing when the work throws before it wrote', async () => {
    await expect(
      inPipelinedTransaction(database, 'test', async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await inPipelinedTransaction(database, 'test', async (tx) => {
      await insert(tx, 7);
      return { commit: true, value: undefined };
    });
    expect(await rows()).toEqual([1, 2, 6, 7]);
  });
});
