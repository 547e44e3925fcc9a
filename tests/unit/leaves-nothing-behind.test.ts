import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

/** A temporary folder of its own for a probed run, readable as /tmp is: the embedded PostgreSQL's own user enters it. */
function probeFolder(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'cgp-tmp-probe-'));
  chmodSync(folder, 0o755);
  folders.push(folder);
  return folder;
}

/** A vitest run of `args` with its own temporary folder; what it left there. */
function leftBehind(args: string[]): { status: number | null; left: string[] } {
  const folder = probeFolder();
  const env = { ...process.env, TMPDIR: folder, CGP_TEST_RUN_FOLDER: '' };
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], { env, encoding: 'utf8', timeout: 180_000 });
  return { status: run.status, left: readdirSync(folder) };
}

/** The processes still running with `folder` in their environment (PostgreSQL, serverless offline and its workers inherit it). */
function processesUsing(folder: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(folder);
      } catch {
        return false; // ended meanwhile
      }
    });
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('a test run', () => {
  it('leaves nothing in the temporary folder: PostgreSQL, settings files, CUE jobs', { timeout: 200_000 }, () => {
    const run = leftBehind(['tests/integration/health.test.ts', 'tests/unit/cue-worker-pool.test.ts']);
    expect(run.status).toBe(0);
    expect(run.left).toEqual([]);
  });

  it('leaves nothing when it fails either', { timeout: 200_000 }, () => {
    // A time limit no test meets makes every test fail.
    const run = leftBehind(['tests/integration/health.test.ts', '--testTimeout', '1']);
    expect(run.status).not.toBe(0);
    expect(run.left).toEqual([]);
  });

  it('of a bench stopped with Ctrl-C leaves no process and nothing in the temporary folder', { timeout: 200_000 }, async () => {
    const folder = probeFolder();
    // As in a terminal: the signal comes while the bench's PostgreSQL and serverless offline run.
    const script = `
      const { startBenchWorld } = await import(${JSON.stringify(path.resolve('bench/bench-world.ts'))});
      await startBenchWorld('');
      process.kill(process.pid, 'SIGINT');
      setInterval(() => undefined, 1000);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TMPDIR: folder },
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(run.status).toBe(130);
    await expect.poll(() => processesUsing(folder), { timeout: 10_000 }).toEqual([]);
    // tsx keeps its compile cache there (tsx-<uid>), shared by every run: no leftover of this one.
    expect(readdirSync(folder).filter((name) => !name.startsWith('tsx-'))).toEqual([]);
  });
});
