import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalPostgres } from '../../scripts/local-postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** A real PostgreSQL for the tests: DATABASE_URL when set, else a throw-away embedded server. */
export async function startTestDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const parent = await mkdtemp(path.join(tmpdir(), 'cgp-test-pg-'));
  // PostgreSQL runs as its own user, which must be able to reach the data folder.
  await chmod(parent, 0o755);
  const dataDir = path.join(parent, 'data');
  const server = await startLocalPostgres({ dataDir, persistent: false });
  return { url: server.url, stop: server.stop };
}

export default async function setup(project: TestProject) {
  const database = await startTestDatabase();
  project.provide('databaseUrl', database.url);
  return database.stop;
}
