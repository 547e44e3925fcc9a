// Builds the console (console/, TypeScript + Preact) with the project's esbuild into
// .console-build/: index.html and assets/ with content-hashed names, which the console function
// (functions/service/console.ts) serves. Run by the serverless plugin scripts/console-build.cjs
// before `serverless package`/`deploy` and `serverless offline` (npm start, the e2e tests), and by
// hand with `node scripts/build-console.mjs`. One build takes well under a second.
//
// Builds that run at the same time (a package beside a running server) write the same names for
// the same sources: assets are content-addressed and index.html is replaced atomically.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const SOURCE_FOLDER = path.join(root, 'console');
export const OUTPUT_FOLDER = path.join(root, '.console-build');
const ASSETS = 'assets';

/** Builds the console once; answers the asset files it wrote (relative to the output folder). */
export async function buildConsole({ outputFolder = OUTPUT_FOLDER } = {}) {
  const assetsFolder = path.join(outputFolder, ASSETS);
  await mkdir(assetsFolder, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [path.join(SOURCE_FOLDER, 'main.tsx')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'eof',
    entryNames: 'console-[hash]',
    assetNames: '[name]-[hash]',
    outdir: assetsFolder,
    metafile: true,
    logLevel: 'warning',
  });
  const written = Object.keys(result.metafile.outputs).map((file) => path.relative(outputFolder, path.resolve(root, file)));
  const entry = (extension) => written.find((file) => file.endsWith(extension) && !file.endsWith(`${extension}.map`));
  const template = await readFile(path.join(SOURCE_FOLDER, 'index.html'), 'utf8');
  // Relative to /console, where the page is served: /console/assets/...
  const html = template.replace('%SCRIPT%', `console/${entry('.js')}`).replace('%STYLE%', `console/${entry('.css')}`);
  const temporary = path.join(outputFolder, `index.html.${process.pid}`);
  await writeFile(temporary, html);
  await rename(temporary, path.join(outputFolder, 'index.html'));
  // What an earlier build wrote and this one did not (the hashes of older sources).
  const current = new Set(written.map((file) => path.basename(file)));
  for (const file of await readdir(assetsFolder)) if (!current.has(file)) await rm(path.join(assetsFolder, file), { force: true });
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = await buildConsole();
  process.stdout.write(`[console] built ${written.length} files into ${path.relative(process.cwd(), OUTPUT_FOLDER)}\n`);
}
