import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CueRunFailure } from '#lib/governance/engines/cue/cue-runner';
import { CueWorkerPool } from '#lib/governance/engines/cue/cue-worker-pool';

describe('the pool of CUE workers', () => {
  let pool: CueWorkerPool;
  beforeAll(() => {
    pool = new CueWorkerPool({ workers: 1, timeoutMs: 20_000, recycleAfterRuns: 2, maxOutputBytes: 1 << 20 });
  });
  afterAll(() => pool.close());

  const evalA = () => pool.run({ args: ['eval', 'a.cue'], files: { 'a.cue': 'a: 1 + 1\n' } });

  it('runs the cue command line on the files of a job', async () => {
    expect(await evalA()).toEqual({ code: 0, stdout: 'a: 2\n', stderr: '' });
  });

  it('keeps working across the recycling of its worker', async () => {
    const outputs = await Promise.all([evalA(), evalA(), evalA(), evalA(), evalA()]);
    expect(outputs.map((output) => output.stdout)).toEqual(Array(5).fill('a: 2\n'));
  });

  it('fails the run of a worker that crashed, and replaces the worker', async () => {
    // cue fmt formats this one-line struct recursively and overflows the stack of the WebAssembly runtime.
    const oneLine = `x: {${Array.from({ length: 60_000 }, (_, i) => `f${i}: ${i}`).join(', ')}}\n`;
    const failure = await pool.run({ args: ['fmt', 'big.cue'], files: { 'big.cue': oneLine } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CueRunFailure);
    expect(failure).toMatchObject({
      overLimit: true,
      message: expect.stringMatching(/^CUE ran out of stack \(the input nests or chains expressions too deeply\): Maximum call stack size exceeded/),
    });
    expect(await evalA()).toEqual({ code: 0, stdout: 'a: 2\n', stderr: '' });
  });
});
