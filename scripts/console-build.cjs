'use strict';
/**
 * A local Serverless plugin (serverless.yml): builds the console (scripts/build-console.mjs) into
 * .console-build/ before `serverless package` and `deploy` copy it into the console function's
 * package, and before `serverless offline` serves it. Under offline, a change to console/ builds
 * it again (served by the next request; no function is rebuilt or reloaded).
 */
const { watch } = require('node:fs');
const path = require('node:path');

const COMMANDS = new Set(['package', 'deploy', 'offline']);
/** The events of a burst of changes (an editor saving several files) are served by one build. */
const SETTLE_MS = 200;

class ConsoleBuild {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { initialize: () => this.buildForCommand() };
  }

  async buildForCommand() {
    const command = this.serverless.processedInput?.commands?.[0];
    if (!COMMANDS.has(command)) return;
    const { buildConsole, SOURCE_FOLDER } = await import('./build-console.mjs');
    const esbuild = await import('esbuild');
    const build = async () => {
      try {
        await buildConsole();
      } finally {
        // No esbuild service kept between builds (see esbuild-offline-shared-build.cjs).
        await esbuild.stop();
      }
    };
    await build();
    if (command !== 'offline') return;
    let timer;
    let building = Promise.resolve();
    const rebuild = () => {
      building = building
        .then(build)
        .then(() => this.serverless.cli.log('console rebuilt'))
        .catch((error) => this.serverless.cli.log(`console build failed: ${error.message}`));
    };
    watch(SOURCE_FOLDER, { recursive: true, persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(rebuild, SETTLE_MS);
    });
    this.serverless.cli.log(`console built; watching ${path.relative(process.cwd(), SOURCE_FOLDER)}`);
  }
}

module.exports = ConsoleBuild;
