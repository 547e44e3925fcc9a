import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** A vitest run of `args` with its own temporary folder; what it left there. */
function leftBehind(args: string[]): { status: number | null; left: string[] } {
  const folder = mkdtempSync(path.join(tmpdir(), 'cgp-tmp-probe-'));
  chmodSync(folder, 0o755); // as /tmp is: the embedded PostgreSQL's own user enters it
  folders.push(folder);
  const env = { ...process.env, TMPDIR: folder, CGP_TEST_RUN_FOLDER: '' };
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], { env, encoding: 'utf8', timeout: 180_000 });
  return { status: run.status, left: readdirSync(folder) };
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
});
