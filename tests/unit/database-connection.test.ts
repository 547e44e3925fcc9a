import { describe, expect, it, vi } from 'vitest';

import { connectionUrl, DatabaseConfigurationError, poolOptions } from '#lib/db/connection';
import { loadSettings } from '#lib/settings/index';

import { MINIMAL, writeSettingsFile } from '../support/settings-files';

const settings = (database: string, env: NodeJS.ProcessEnv = {}) =>
  loadSettings(writeSettingsFile(`${MINIMAL}\ncomputational-governance-platform.database { ${database} }`), env);

describe('where the database is', () => {
  it('is DATABASE_URL first', async () => {
    expect(connectionUrl(await settings('url = "postgresql://file/db", host = "h"', { DATABASE_URL: 'postgresql://env/db' }))).toBe('postgresql://env/db');
  });

  it('is database.url next, jdbc: prefix dropped', async () => {
    expect(connectionUrl(await settings('url = "jdbc:postgresql://file:5432/db", host = "h"'))).toBe('postgresql://file:5432/db');
  });

  it('is built from host, port, name, username and password last, escaping credentials', async () => {
    const url = connectionUrl(await settings('host = "db.test", port = 6543, name = "gov", username = "svc", password = "p@ss/word"'));
    expect(url).toBe('postgresql://svc:p%40ss%2Fword@db.test:6543/gov');
  });

  it('is a clear error when nothing says where', async () => {
    const unset = await settings('');
    expect(() => connectionUrl(unset)).toThrow(DatabaseConfigurationError);
    expect(() => connectionUrl(unset)).toThrow(/DATABASE_URL/);
  });
});

describe('pool options', () => {
  it('map thread-pool-size, connection-timeout and max-lifetime', async () => {
    const options = poolOptions(await settings('thread-pool-size = 7, connection-timeout = "15 seconds", max-lifetime = "10 minutes"'));
    expect(options).toMatchObject({ max: 7, connect_timeout: 15, max_lifetime: 600 });
  });

  it('start each connection with the server-side timeouts', async () => {
    expect(poolOptions(await settings('')).connection).toEqual({
      application_name: 'computational-governance-platform',
      statement_timeout: 60_000,
      lock_timeout: 10_000,
      idle_in_transaction_session_timeout: 60_000,
    });
    const tuned = poolOptions(await settings('statement-timeout = "5 seconds", lock-timeout = 0, idle-in-transaction-timeout = "2 minutes"'));
    expect(tuned.connection).toMatchObject({ statement_timeout: 5000, lock_timeout: 0, idle_in_transaction_session_timeout: 120_000 });
  });

  it('ask for TLS as database.ssl says; unset, as the URL says, and none locally', async () => {
    expect(poolOptions(await settings('url = "postgresql://db/x", ssl = "verify-full"')).ssl).toBe('verify-full');
    expect(poolOptions(await settings('url = "postgresql://db/x", ssl = "disable"')).ssl).toBe(false);
    expect(poolOptions(await settings('url = "postgresql://db/x?sslmode=require"'))).not.toHaveProperty('ssl');
    expect(poolOptions(await settings('url = "postgresql://db/x"'))).not.toHaveProperty('ssl');
  });

  it('require TLS when deployed, unless told otherwise', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'cgp-prod-evaluate');
    try {
      expect(poolOptions(await settings('url = "postgresql://db/x"')).ssl).toBe('require');
      expect(poolOptions(await settings('url = "postgresql://db/x?sslmode=disable"'))).not.toHaveProperty('ssl');
      expect(poolOptions(await settings('url = "postgresql://db/x", ssl = "disable"')).ssl).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('stay small for Lambda when unset', async () => {
    const options = poolOptions(await settings(''));
    expect(options).toMatchObject({ max: 2, connect_timeout: 10, max_lifetime: 1800 });
  });
});

describe('database.url with separate credentials', () => {
  it('takes username and password from their own keys when the URL has none', async () => {
    expect(connectionUrl(await settings('url = "jdbc:postgresql://db.test:5432/gov", username = "svc", password = "p#ss"'))).toBe(
      'postgresql://svc:p%23ss@db.test:5432/gov',
    );
  });

  it('keeps the credentials the URL carries', async () => {
    expect(connectionUrl(await settings('url = "postgresql://own:pw@db.test/gov", username = "svc", password = "x"'))).toBe('postgresql://own:pw@db.test/gov');
  });
});
