import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { inTransaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';

import { testDatabase } from '../support/database';

let database: Database;

beforeAll(async () => {
  database = await testDatabase('it_leaks', 'computational-governance-platform.database.leak-detection-threshold = "50ms"');
});

afterAll(async () => {
  await database.close();
});

describe('leak detection', () => {
  it('warns, naming the holder, when a connection is held past the threshold', async () => {
    const warn = vi.spyOn(logger, 'warn');
    await inTransaction(database, 'slow report writer', async (tx) => {
      await tx.execute('select pg_sleep(0.2)');
    });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ holder: 'slow report writer', thresholdMs: 50 }),
      expect.stringContaining('possible connection leak'),
    );
    warn.mockRestore();
  });

  it('stays quiet for a connection given back in time', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const result = await inTransaction(database, 'quick reader', async (tx) => tx.execute('select 1 as one'));
    expect([...result]).toEqual([{ one: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});
