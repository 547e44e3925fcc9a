import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freePort } from '../../scripts/free-port';

/** A copy of the checkout (tracked files, node_modules as hard links), so npm start keeps its own .data. */
let checkout: string;

beforeAll(() => {
  const folder = mkdtempSync(path.join(tmpdir(), 'cgp-npm-start-'));
  chmodSync(folder, 0o755);
  checkout = path.join(folder, 'checkout');
  for (const file of execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean)) cpSync(file, path.join(checkout, file));
  execFileSync('cp', ['-al', 'node_modules', path.join(checkout, 'node_modules')]);
});

afterAll(() => rmSync(path.dirname(checkout), { recursive: true, force: true }));

const running = (pattern: string) =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .some((line) => line.includes(pattern));

/** The commands of the processes started by the serverless offline that serves `port` (esbuild's service, when it runs). */
function offlineChildren(port: number): string[] {
  const processes = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, pid, ppid, args]) => ({ pid, ppid, args }));
  const offline = processes.find(({ args }) => args.includes('offline start') && args.includes(`--httpPort ${port}`));
  return processes.filter(({ ppid }) => ppid === offline?.pid).map(({ args }) => args);
}

describe('npm start', () => {
  it(
    'serves /health on its embedded PostgreSQL without esbuild running, prints the link of the console (signed in) and rebuilds the console when its sources change, and on SIGTERM stops serverless offline and PostgreSQL and removes its build folder; a source change is built and served',
    {
      timeout: 330_000,
    },
    async () => {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = { ...process.env, HTTP_PORT: String(port) };
      delete env.DATABASE_URL;
      delete env.CGP_CONFIG_FILE;
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: checkout, env, stdio: ['ignore', 'pipe', 'ignore'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const health = async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status;
      try {
        await expect.poll(health, { timeout: 150_000, interval: 500 }).toBe(200);
        expect(existsSync(path.join(checkout, '.esbuild-offline', String(port)))).toBe(true);
        expect(running(path.join(checkout, '.data', 'postgres'))).toBe(true);
        // The console's link, signed in by a local token in its fragment, which the API takes.
        await expect.poll(() => /the console, signed in with a local token: (\S+)\n/.exec(output)?.[1], { timeout: 30_000 }).toMatch(/\/console#token=/);
        const link = new URL(/the console, signed in with a local token: (\S+)\n/.exec(output)?.[1] ?? '');
        expect(link.pathname).toBe('/console');
        const token = link.hash.replace('#token=', '');
        const policies = await fetch(`http://127.0.0.1:${port}/v1/computational-governance/policies`, { headers: { authorization: `Bearer ${token}` } });
        expect(policies.status).toBe(200);
        // Built once, esbuild's service is stopped: it holds no memory while the server runs.
        expect(offlineChildren(port).filter((args) => args.includes('esbuild'))).toEqual([]);
        // A source change is built and served (here /health made to answer 503 whatever the database).
        const source = path.join(checkout, 'functions', 'service', 'health.ts');
        writeFileSync(
          source,
          readFileSync(source, 'utf8').replace('databaseReachable(getDatabase)', "databaseReachable(() => Promise.reject(new Error('made unreachable')))"),
        );
        await expect.poll(health, { timeout: 120_000, interval: 500 }).toBe(503);
        // A change to the console's sources is built and served by the next request.
        const styleOf = async () => /href="(console\/assets\/[^"]+\.css)"/.exec(await (await fetch(`http://127.0.0.1:${port}/console`)).text())?.[1];
        const style = await styleOf();
        expect(style).toBeDefined();
        writeFileSync(
          path.join(checkout, 'console', 'styles.css'),
          `${readFileSync(path.join(checkout, 'console', 'styles.css'), 'utf8')}\nhr { border: 0; }\n`,
        );
        await expect.poll(styleOf, { timeout: 30_000, interval: 300 }).not.toBe(style);
        await expect.poll(() => offlineChildren(port).filter((args) => args.includes('esbuild')), { timeout: 30_000, interval: 500 }).toEqual([]);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(existsSync(path.join(checkout, '.esbuild-offline'))).toBe(false);
      expect(running(path.join(checkout, '.data', 'postgres'))).toBe(false);
      expect(existsSync(path.join(checkout, '.data', 'postgres', 'PG_VERSION'))).toBe(true);
    },
  );
});
