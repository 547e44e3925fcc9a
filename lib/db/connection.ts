import type { Options } from 'postgres';

import { runtimeEnvironment } from '#lib/settings/environment';
import type { Settings } from '#lib/settings/index';

export class DatabaseConfigurationError extends Error {
  override name = 'DatabaseConfigurationError';
}

/**
 * Where to connect: DATABASE_URL, else `database.url` (a jdbc:postgresql:// URL is accepted),
 * else a URL built from `database.host`, `port`, `name`, `username` and `password`.
 */
export function connectionUrl(settings: Settings): string {
  if (settings.databaseUrlFromEnvironment) return settings.databaseUrlFromEnvironment;
  const { url, host, port, name, username, password } = settings.database;
  if (url) return withCredentials(url.replace(/^jdbc:/, ''), username, password);
  if (!host) {
    throw new DatabaseConfigurationError(
      'No database configured: set DATABASE_URL, or computational-governance-platform.database.url, or database.host (with port, name, username, password)',
    );
  }
  const credentials = username ? `${encodeURIComponent(username)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  return `postgresql://${credentials}${host}:${port}/${encodeURIComponent(name)}`;
}

/** database.username / password apply to database.url too, unless the URL carries its own. */
function withCredentials(url: string, username?: string, password?: string): string {
  if (!username) return url;
  const parsed = new URL(url);
  if (parsed.username) return url;
  parsed.username = encodeURIComponent(username);
  if (password) parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.max(1, Math.ceil(ms / 1000)));

/**
 * Pool options from the database settings. A Lambda container (and each serverless-offline
 * worker) serves one request at a time, so the pool stays small and gives idle connections back.
 */
export function poolOptions(settings: Settings): Options<Record<string, never>> {
  const { threadPoolSize, connectionTimeout, maxLifetime, preparedStatements } = settings.database;
  const ssl = sslOf(settings);
  return {
    max: threadPoolSize ?? 2,
    // Off, no statement is prepared, drizzle's included (lib/db/prepared-statements.ts asks postgres.js, which decides).
    prepare: preparedStatements,
    idle_timeout: 20,
    connect_timeout: seconds(connectionTimeout) ?? 10,
    max_lifetime: seconds(maxLifetime) ?? 30 * 60,
    onnotice: () => undefined,
    connection: { application_name: 'computational-governance-platform', ...serverTimeouts(settings) },
    ...(ssl === undefined ? {} : { ssl: ssl === 'disable' ? false : ssl }),
  };
}

/** The server-side bounds every connection starts with (database.statement-timeout, lock-timeout, idle-in-transaction-timeout). */
function serverTimeouts(settings: Settings): Record<string, number> {
  const { statementTimeout, lockTimeout, idleInTransactionTimeout } = settings.database;
  return { statement_timeout: statementTimeout, lock_timeout: lockTimeout, idle_in_transaction_session_timeout: idleInTransactionTimeout };
}

/** database.ssl; unset, the URL's sslmode decides, else TLS is required when deployed. */
function sslOf(settings: Settings): 'disable' | 'prefer' | 'require' | 'verify-full' | undefined {
  if (settings.database.ssl) return settings.database.ssl;
  if (/[?&]sslmode=/.test(settings.databaseUrlFromEnvironment ?? settings.database.url ?? '')) return undefined;
  return runtimeEnvironment().deployed ? 'require' : undefined;
}
