// `npm run package`: `serverless package` (arguments passed on), with its temporary files in a
// folder of its own that is removed afterwards: serverless-esbuild leaves the staging folder of
// every function's zip in the temporary folder (~650 MB a run).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const folder = mkdtempSync(path.join(tmpdir(), 'cgp-package-'));
try {
  const run = spawnSync(process.execPath, [path.join('node_modules', 'serverless', 'bin', 'serverless.js'), 'package', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: folder },
  });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
