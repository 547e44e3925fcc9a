import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { localDataFolders } from '../../scripts/postgres-runtime';

/**
 * A checkout in a folder only root can enter (root's home, a 0700 mktemp), as a user puts it.
 * As root, PostgreSQL runs as the postgres user, which cannot enter it.
 */
const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('a checkout in a private folder, as root', () => {
  let privateFolder: string;
  let checkout: string;
  let shared: string;

  beforeAll(() => {
    privateFolder = mkdtempSync(path.join(tmpdir(), 'cgp-private-'));
    chmodSync(privateFolder, 0o700);
    checkout = path.join(privateFolder, 'checkout');
    mkdirSync(checkout);
    // node_modules as hard links (fast, no extra space), the rest as copies: the binaries live in the private folder.
    expect(spawnSync('cp', ['-al', 'node_modules', path.join(checkout, 'node_modules')]).status).toBe(0);
    for (const entry of ['scripts', 'package.json', 'tsconfig.json']) cpSync(entry, path.join(checkout, entry), { recursive: true });
    shared = mkdtempSync(path.join(tmpdir(), 'cgp-private-data-'));
    chmodSync(shared, 0o755);
  }, 300_000);

  afterAll(() => {
    rmSync(privateFolder, { recursive: true, force: true });
    rmSync(shared, { recursive: true, force: true });
  });

  /** Runs `code` (an ES module body) with node + tsx in the checkout, under a hardened root's umask (077); its stdout. */
  const runInCheckout = (code: string) => {
    writeFileSync(path.join(checkout, 'probe.mts'), `process.umask(0o077);\n${code}`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'probe.mts'], { cwd: checkout, encoding: 'utf8', timeout: 120_000 });
    return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
  };

  it('starts the embedded PostgreSQL from binaries copied where the postgres user can reach them, and answers SQL', () => {
    const run = runInCheckout(`
      import postgres from 'postgres';
      import { startLocalPostgres } from './scripts/local-postgres.ts';
      const server = await startLocalPostgres({ dataDir: ${JSON.stringify(path.join(shared, 'data'))}, runtimeDir: ${JSON.stringify(path.join(shared, 'runtime'))}, persistent: false });
      const sql = postgres(server.url, { max: 1 });
      const [row] = await sql\`select current_user as "user", 1 + 1 as two\`;
      await sql.end();
      await server.stop();
      console.log(JSON.stringify(row));
    `);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ user: 'postgres', two: 2 });
    expect(existsSync(path.join(shared, 'runtime'))).toBe(true);
    expect(existsSync(path.join(shared, 'data'))).toBe(false);
  });

  it('npm start keeps its data outside a checkout the postgres user cannot enter, across restarts, and refuses a data folder it cannot reach in one sentence', () => {
    const run = runInCheckout(`
      import { rm, rmdir } from 'node:fs/promises';
      import path from 'node:path';
      import postgres from 'postgres';
      import { localDataFolders } from './scripts/postgres-runtime.ts';
      import { startLocalPostgres } from './scripts/local-postgres.ts';
      const folders = localDataFolders('.');
      const answers = [];
      try {
        // As two npm starts one after the other: the second finds what the first wrote.
        for (const statement of ['create table kept as select 42 as v', 'select v from kept']) {
          const server = await startLocalPostgres({ ...folders, persistent: true });
          const sql = postgres(server.url, { max: 1, onnotice: () => undefined });
          answers.push(await sql.unsafe(statement));
          await sql.end();
          await server.stop();
        }
      } finally {
        await rm(folders.runtimeDir, { recursive: true, force: true });
        await rmdir(path.dirname(folders.runtimeDir)).catch(() => undefined); // unless other checkouts keep data there
      }
      const refusal = await startLocalPostgres({ dataDir: '.data/postgres', persistent: true }).then(() => 'started', (error) => error.message);
      console.log(JSON.stringify({ folders, answers, refusal }));
    `);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const { folders, answers, refusal } = JSON.parse(run.stdout);
    expect(folders.runtimeDir).toMatch(/^\/var\/lib\/computational-governance-platform\/checkout-[0-9a-f]{12}$/);
    expect(folders.dataDir).toBe(path.join(folders.runtimeDir, 'postgres'));
    expect(answers[1]).toEqual([{ v: 42 }]);
    expect(existsSync(folders.runtimeDir)).toBe(false);
    expect(refusal).toMatch(
      /^PostgreSQL runs as the postgres user when started as root, and that user cannot enter the folders of \.data\/postgres: .*DATABASE_URL/,
    );
  });

  it('a checkout others can enter keeps its data in .data/postgres, also once PostgreSQL made it its own (0700)', () => {
    const open = mkdtempSync(path.join(tmpdir(), 'cgp-open-checkout-'));
    try {
      chmodSync(open, 0o755);
      mkdirSync(path.join(open, '.data', 'postgres'), { recursive: true });
      chmodSync(path.join(open, '.data'), 0o755);
      chmodSync(path.join(open, '.data', 'postgres'), 0o700);
      expect(localDataFolders(open)).toEqual({ dataDir: path.join(open, '.data', 'postgres') });
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });
});
