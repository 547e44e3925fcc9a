// The native CUE evaluator in a worker thread of its own (tests/support/cue-native-sandbox.ts):
// a policy that makes it run away (a string grown without end) exhausts this worker's heap, not the
// test runner's. Plain JavaScript, because workers do not share the runner's TypeScript loader:
// the evaluator is loaded through tsx's API.
import { parentPort } from 'node:worker_threads';

import { tsImport } from 'tsx/esm/api';

const { compileNative, evaluateNative } = await tsImport('@cgp/cue', import.meta.url);
const { engineResultOf } = await tsImport('../../lib/governance/engines/cue/native-evaluator.ts', import.meta.url);

let program;
parentPort.on('message', (message) => {
  if (message.type === 'compile') {
    const compiled = compileNative(message.script, message.maxSteps);
    program = compiled.ok ? compiled.program : undefined;
    parentPort.postMessage({ type: 'compiled', result: compiled.ok ? { ok: true } : compiled });
  } else if (message.type === 'evaluate') {
    const verdict = evaluateNative(program, message.descriptor, { requireConcrete: message.requireConcrete, metric: false, maxSteps: message.maxSteps });
    // An internal exception (not a CUE error) is marked, for the differential to count.
    const result = verdict.kind === 'failed' && verdict.fault ? { ...engineResultOf(verdict), fault: true } : engineResultOf(verdict);
    parentPort.postMessage({ type: 'evaluated', result });
  }
});
parentPort.postMessage({ type: 'ready' });
