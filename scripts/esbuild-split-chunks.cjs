'use strict';
/**
 * esbuild plugins of serverless-esbuild (custom.esbuild.plugins in serverless.yml), for `serverless
 * package` and `deploy`, which build each function's handler file on its own with code splitting:
 * what a function reaches only through a dynamic `import()` (the AWS SDK's SSM client, undici, the
 * CUE engine, the LLM gateway, X-Ray...) is written to chunks of its own that Node reads only when
 * the import runs, so that a cold start compiles only what a call needs first (docs/deployment.md,
 * "Packages"). Under `serverless offline`, which builds every handler file in one build without
 * splitting (scripts/esbuild-offline-shared-build.cjs), they do nothing.
 *
 * Two things make that fit serverless-esbuild's packaging:
 * - Each function's chunks go to a folder named after its bundle, `<bundle>.chunks/` beside
 *   `<bundle>.mjs`. serverless-esbuild builds every handler file into the same folder and zips each
 *   function with every file there except the other functions' bundles and the files whose names
 *   continue them (`<bundle>.*`, as a source map does): so a function's zip holds its own chunks and
 *   no other function's.
 * - serverless-esbuild puts an external package (application.conf's HOCON parser) into a zip when
 *   the function's bundle file imports it, and it reads only that file. An external that only a
 *   chunk imports is therefore also imported by the bundle, which loads its chunks statically
 *   anyway when the chunk is one of them.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { isBuiltin } = require('node:module');
const path = require('node:path');

/** Node's own modules (`node:sqlite` is one only with its prefix, and newer than some Node versions that build). */
const builtin = (name) => name.startsWith('node:') || isBuiltin(name);

/** The outputs the entry's output imports statically, itself included. */
function staticClosure(outputs, entryOutput) {
  const reached = new Set();
  const pending = [entryOutput];
  while (pending.length > 0) {
    const output = pending.pop();
    if (reached.has(output)) continue;
    reached.add(output);
    for (const imported of outputs[output].imports) if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
  }
  return reached;
}

/** Prepends `import "<name>";` for each name to the file, below its first line (the banner's `require`). */
function importAlso(file, names) {
  const [banner, ...rest] = readFileSync(file, 'utf8').split('\n');
  writeFileSync(file, [banner, ...names.map((name) => `import ${JSON.stringify(name)};`), ...rest].join('\n'));
}

const splitChunks = {
  name: 'split-chunks',
  setup(build) {
    const options = build.initialOptions;
    if (!options.splitting) return;
    const entries = Array.isArray(options.entryPoints) ? options.entryPoints : Object.values(options.entryPoints ?? {});
    if (entries.length !== 1) throw new Error(`split-chunks: code splitting is for one handler file a build, not ${entries.length}`);
    const entry = String(entries[0]);
    const bundleName = path.basename(entry, path.extname(entry));
    options.chunkNames = `${bundleName}.chunks/[name]-[hash]`;
    options.metafile = true;
    build.onEnd((result) => {
      if (result.errors.length > 0 || !result.metafile) return;
      const { outputs } = result.metafile;
      // Each dynamic import's chunk has an entry point too: the bundle is the handler file's.
      const root = options.absWorkingDir ?? process.cwd();
      const entryOutput = Object.keys(outputs).find((output) => path.resolve(root, outputs[output].entryPoint ?? '') === path.resolve(root, entry));
      const ownExternals = new Set(outputs[entryOutput].imports.filter((imported) => imported.external).map((imported) => imported.path));
      const chunkExternals = new Set();
      for (const output of Object.keys(outputs)) {
        for (const imported of outputs[output].imports) {
          if (imported.external && !builtin(imported.path) && !ownExternals.has(imported.path)) chunkExternals.add(imported.path);
        }
      }
      // Only what the bundle loads anyway: an external that a dynamic chunk alone imports would
      // otherwise be loaded with the bundle. None is so today; if one comes, it is refused here.
      const loaded = staticClosure(outputs, entryOutput);
      for (const name of chunkExternals) {
        const importers = Object.keys(outputs).filter((output) => outputs[output].imports.some((imported) => imported.external && imported.path === name));
        if (!importers.some((output) => loaded.has(output))) {
          throw new Error(
            `split-chunks: ${name} (external) is imported only by a chunk that ${entry} loads on demand; serverless-esbuild would leave it out of the zip`,
          );
        }
      }
      if (chunkExternals.size > 0) importAlso(path.resolve(root, entryOutput), [...chunkExternals].sort());
    });
  },
};

module.exports = [splitChunks];
