// `npm run lint`'s check for unused exports (ts-unused-exports over tsconfig.json); fails on any finding.
//
// Two passes, because the tool has no per-kind setting and the rule is not the same for values and types:
// - a value (function, constant, class) is exported only if another module imports it;
// - a type may stay exported while its own module uses it, since it names a part of that module's exported
//   signatures (the module's contract); a type no module uses at all is still reported.
//
// Entry points are modules nothing imports but something outside TypeScript starts, so their exports are
// not reported: the handlers under functions/ (serverless.yml names them), the vitest global setups (vitest.config.ts names them), the command line
// (bin/cgp.mjs imports lib/cli/main.ts), the configs, and the entry points of packages/cue (package.json
// "exports": a library's contract, imported by its name, which this tool does not resolve).
// Fixtures (tests/fixtures/) are files the tests hand to tools, not modules anyone imports.
// scripts/ and bench/ are started by path, but they export nothing for anyone else: what they export is checked.
// The console (console/tsconfig.json, its own program) is checked the same way, for its own files only
// (it imports types of lib/, whose exports are the server's business); console/main.tsx is its entry point.

import path from 'node:path';

import ts from 'ts-unused-exports';

const analyzeTsConfig = ts.analyzeTsConfig ?? ts.default;
const ENTRY_POINTS = [
  '/functions/',
  '/tests/support/(database|e2e|browser)-setup\\.ts$',
  '/lib/cli/main\\.ts$',
  '/[a-z]+\\.config\\.ts$',
  '/tests/fixtures/',
  '/packages/cue/src/(index|regexp|syntax/index|pkg/index)\\.ts$',
];
const exclude = `--excludePathsFromReport=${ENTRY_POINTS.join(';')}`;

const programs = [
  { tsconfig: 'tsconfig.json', reported: () => true },
  { tsconfig: 'console/tsconfig.json', reported: (file) => file.startsWith('console/') && file !== 'console/main.tsx' },
];

const unused = new Set();
for (const { tsconfig, reported } of programs) {
  for (const mode of ['--allowUnusedTypes', '--ignoreLocallyUsed']) {
    const { unusedExports } = analyzeTsConfig(tsconfig, [mode, exclude]);
    for (const [file, exports] of Object.entries(unusedExports)) {
      if (!reported(path.relative('.', file))) continue;
      for (const { exportName, location } of exports) unused.add(`${path.relative('.', file)}${location ? `:${location.line}` : ''}: ${exportName}`);
    }
  }
}
for (const finding of [...unused].sort()) process.stdout.write(`unused export: ${finding}\n`);
if (unused.size > 0) process.exit(1);
