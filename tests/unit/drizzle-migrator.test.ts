import { readFileSync } from 'node:fs';

import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';

import { drizzleMigrator } from '#lib/db/migrations';

// postgres.js connects on the first query only: this client never does.
const client = postgres('postgres://nobody@127.0.0.1:9/none', { max: 1 });
afterAll(() => client.end({ timeout: 0 }));

describe('the drizzle internals the migrations use (lib/db/migrations.ts)', () => {
  it('are there in the drizzle-orm this project pins', () => {
    const { dialect, session } = drizzleMigrator(drizzle(client));
    expect(dialect.migrate).toBeTypeOf('function');
    expect(session.execute).toBeTypeOf('function');
  });

  it('are pinned to an exact version, since an upgrade may move them', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['drizzle-orm']).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('are refused, naming the file, when a drizzle no longer has them', () => {
    expect(() => drizzleMigrator({ dialect: {}, session: {} } as never)).toThrow(/lib\/db\/migrations\.ts/);
  });
});
