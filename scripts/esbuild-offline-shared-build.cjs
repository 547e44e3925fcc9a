'use strict';
/**
 * A local Serverless plugin (serverless.yml): under `serverless offline` only, the functions'
 * bundles are built by ONE esbuild build with every handler file as an entry point, and esbuild's
 * service process is stopped once the build is written; a source change (serverless-esbuild's
 * watch) builds them all again the same way, then serverless offline reloads its handlers as before.
 *
 * Why: serverless-esbuild keeps an incremental esbuild context per handler file (17 of them) for
 * its watch, and each holds its own parsed copy of every module its handler reaches (zod, drizzle,
 * the AWS SDK, the governance library...): ~2.1 GB in esbuild's service process, for as long as
 * serverless offline runs, growing with every rebuild. Measured on this service (2 cores): those
 * 17 contexts took ~17 s to build and ~17 s to rebuild after a change; one build of all entry
 * points takes ~9 s, and an incremental context of all of them rebuilt in ~8.5 s while holding
 * 0.5-1 GB, so keeping a context buys almost nothing. Built once and stopped, esbuild holds no
 * memory between changes.
 *
 * The output is what serverless-esbuild's own build writes without code splitting (compared byte
 * for byte, bundles and source maps): each entry point as a whole bundle of its own, at the same
 * path (`outbase` is the service folder, as serverless-esbuild's per-entry `outdir` is the entry's
 * folder). Packaging splits each function's dynamic imports into chunks (scripts/esbuild-split-chunks.cjs);
 * here splitting is off, as one build of every entry would share its chunks among them. Every other step (copying the extras, the watch, telling
 * serverless offline to reload its handlers, `serverless package` and `deploy`) stays
 * serverless-esbuild's own: this only replaces its `bundle` step, and only for `offline`.
 */
const path = require('node:path');

/** The options of serverless-esbuild that are its own, not esbuild's (serverless-esbuild's bundle.js strips the same). */
const PLUGIN_OPTIONS = [
  'concurrency',
  'zipConcurrency',
  'exclude',
  'nativeZip',
  'packager',
  'packagePath',
  'watch',
  'keepOutputDirectory',
  'packagerOptions',
  'installExtraArgs',
  'outputFileExtension',
  'outputBuildFolder',
  'outputWorkFolder',
  'nodeExternals',
  'skipBuild',
  'skipRebuild',
  'skipBuildExcludeFns',
  'stripEntryResolveExtensions',
  'disposeContext',
];

class EsbuildOfflineSharedBuild {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      initialize: () => this.replaceBundleUnderOffline(),
    };
  }

  replaceBundleUnderOffline() {
    if (this.serverless.processedInput?.commands?.[0] !== 'offline') return;
    const plugin = this.serverless.pluginManager.plugins.find((candidate) => candidate.constructor?.name === 'EsbuildServerlessPlugin');
    if (!plugin) throw new Error('esbuild-offline-shared-build: serverless-esbuild is not loaded');
    // The esbuild serverless-esbuild itself uses.
    const esbuild = require(require.resolve('esbuild', { paths: [path.dirname(require.resolve('serverless-esbuild'))] }));
    let building;
    let next;
    let built = false;
    /**
     * One build at a time: a change made during a build asks for one more, shared by all that asked
     * meanwhile. A rebuild waits a moment first, so that the events of a burst of changes (a branch
     * checked out, an editor saving several files) are served by one build.
     */
    const build = () => {
      if (!building) {
        const settle = built ? new Promise((resolve) => setTimeout(resolve, 300)) : Promise.resolve();
        built = true;
        building = settle.then(buildOnce).finally(() => {
          building = undefined;
        });
        return building;
      }
      next ??= building
        .catch(() => undefined)
        .then(() => {
          next = undefined;
          return build();
        });
      return next;
    };
    const buildOnce = async () => {
      plugin.prepare();
      const { buildOptions, buildDirPath } = plugin;
      const strings = (value) => [value ?? []].flat().filter((name) => typeof name === 'string');
      const exclude = strings(buildOptions.exclude);
      const entries = [...new Set(plugin.functionEntries.map(({ entry }) => entry))];
      try {
        const result = await esbuild.build({
          ...Object.fromEntries(Object.entries(buildOptions).filter(([name]) => !PLUGIN_OPTIONS.includes(name))),
          // Packaging splits each function's dynamic imports into chunks of its own (scripts/esbuild-split-chunks.cjs);
          // here every handler file is one build, and each keeps a whole bundle of its own.
          splitting: false,
          external: [...strings(buildOptions.external), ...(exclude.includes('*') ? [] : exclude)],
          plugins: plugin.plugins,
          ...(buildOptions.outputFileExtension !== '.js' ? { outExtension: { '.js': buildOptions.outputFileExtension } } : {}),
          entryPoints: entries,
          outbase: plugin.serviceDirPath,
          outdir: buildDirPath,
        });
        plugin.buildCache = Object.fromEntries(
          entries.map((entry) => [entry, { bundlePath: entry.slice(0, entry.lastIndexOf('.')) + buildOptions.outputFileExtension, entry, result }]),
        );
        plugin.buildResults = plugin.functionEntries
          .filter(({ func }) => func !== null)
          .map(({ entry, func, functionAlias }) => ({ bundlePath: plugin.buildCache[entry].bundlePath, func, functionAlias }));
      } finally {
        // Its memory back: the next build starts the service again.
        await esbuild.stop();
      }
    };
    plugin.bundle = build;
  }
}

module.exports = EsbuildOfflineSharedBuild;
