import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';

import { defineConfig } from 'vitest/config';

// Everything a run writes to the temporary folder (its PostgreSQL, packages, settings files, CUE
// jobs of serverless offline, tsx's cache) goes into one folder of its own, removed when the run
// ends, passed or failed. Readable by others: the embedded PostgreSQL runs as its own user as root.
// (This file is read once per project: the folder is made on the first reading.)
if (!process.env.CGP_TEST_RUN_FOLDER) {
  const runFolder = mkdtempSync(path.join(tmpdir(), 'cgp-test-run-'));
  chmodSync(runFolder, 0o755);
  process.env.CGP_TEST_RUN_FOLDER = runFolder;
  process.env.TMPDIR = runFolder;
  process.on('exit', () => rmSync(runFolder, { recursive: true, force: true }));
}

export default defineConfig({
  // Markdown imports are the file's text, as esbuild's `text` loader bundles them (serverless.yml).
  plugins: [
    { name: 'markdown-text', transform: (code, id) => (id.endsWith('.md') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined) },
  ],
  test: {
    // One file more than the machine has cores: the files wait on PostgreSQL, HTTP and child processes
    // much of the time, and vitest's default (one less than the cores) runs them one at a time on 2
    // cores. On this 2-core machine: 477 s instead of 632 (the e2e files still one at a time, after).
    maxWorkers: availableParallelism() + 1,
    // A hung test's limit, not a measure: files share the cores, and a CPU-heavy test (the scanner
    // sweep, the differentials) takes twice its quiet time beside others on a loaded machine.
    testTimeout: 120_000,
    // Tests read what they need from captured logs; LOG_LEVEL=info npm test shows everything. So with the
    // metric lines (tests/unit/metrics-emf.test.ts turns them on; METRICS_ENABLED=true npm test shows them).
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', METRICS_ENABLED: process.env.METRICS_ENABLED ?? 'false' },
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], sequence: { groupOrder: 2 } } },
      // The native CUE evaluator's own tests (packages/cue: its parser, its declared fields, CUE's conformance files).
      { extends: true, test: { name: 'cue', include: ['packages/cue/tests/**/*.test.ts'], sequence: { groupOrder: 2 } } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: ['tests/support/database-setup.ts'],
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          exclude: ['tests/e2e/npm-start.test.ts'],
          globalSetup: ['tests/support/e2e-setup.ts', 'tests/support/browser-setup.ts'],
          testTimeout: 120_000,
          // One serverless offline and one database serve every e2e file, and some files store the
          // assistant's configurations (state of the whole service): one file at a time, on any machine.
          fileParallelism: false,
          // npm test runs this project in a vitest process of its own beside the others (scripts/test.mjs);
          // in one process (npx vitest run) its files come first, then the other projects' files share every core.
          sequence: { groupOrder: 1 },
        },
      },
      // `npm start` on a copy of the checkout: a stack of its own, none of the shared one, so it runs beside
      // the other projects' files instead of alone among the e2e files.
      { extends: true, test: { name: 'e2e-own-stack', include: ['tests/e2e/npm-start.test.ts'], sequence: { groupOrder: 2 } } },
    ],
  },
});
