import { chmod, mkdtemp, rm } from 'node:fs/promises';
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
  // The binaries are copied beside the data when the checkout is closed to that user (root, private folder).
  const server = await startLocalPostgres({ dataDir: path.join(parent, 'data'), runtimeDir: path.join(parent, 'runtime'), persistent: false });
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      await rm(parent, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject) {
  const database = await startTestDatabase();
  project.provide('databaseUrl', database.url);
  return database.stop;
}
