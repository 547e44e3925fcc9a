import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { inTransaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';

import { testDatabase } from '../support/database';

let database: Database;

// A threshold a quick transaction stays far under also on a loaded machine (one beside a whole test run
// took over 50 ms for `select 1`): the held one sleeps past it.
const THRESHOLD_MS = 2_000;

beforeAll(async () => {
  database = await testDatabase('it_leaks', `computational-governance-platform.database.leak-detection-threshold = "${THRESHOLD_MS}ms"`);
});

afterAll(async () => {
  await database.close();
});

describe('leak detection', () => {
  it('warns, naming the holder, when a connection is held past the threshold', async () => {
    const warn = vi.spyOn(logger, 'warn');
    await inTransaction(database, 'slow report writer', async (tx) => {
      await tx.execute(`select pg_sleep(${(THRESHOLD_MS + 200) / 1000})`);
    });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ holder: 'slow report writer', thresholdMs: THRESHOLD_MS }),
      expect.stringContaining('possible connection leak'),
    );
    warn.mockRestore();
  });

  it('stays quiet for a connection given back in time', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const result = await inTransaction(database, 'quick reader', async (tx) => tx.execute('select 1 as one'));
    expect([...result]).toEqual([{ one: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, THRESHOLD_MS + 200));
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});
