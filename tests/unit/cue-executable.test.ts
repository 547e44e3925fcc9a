import { afterEach, describe, expect, it } from 'vitest';

import { checkCueExecutable } from '#lib/governance/engines/cue/cue-process';
import { CueWorkerPool } from '#lib/governance/engines/cue/cue-worker-pool';
import { createReferenceEvaluator, CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';

import { entity, FAKE_CUE, MIXED, MIXED_EXPECTED, PASS, PRODUCT_POLICY, resource } from './cue-fixtures';

const CONFIG = { cueProcessPath: FAKE_CUE, timeout: 20_000, workers: 2, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 };

afterEach(() => {
  delete process.env.FAKE_CUE_HANG;
  delete process.env.FAKE_CUE_VERSION;
});

describe('cue-config.cue-process-path: an external cue executable', () => {
  it('gives the same verdicts as the WebAssembly workers', async () => {
    const engine = createReferenceEvaluator(CONFIG);
    try {
      expect(await engine.evaluate([entity(PRODUCT_POLICY)], MIXED)).toEqual([MIXED_EXPECTED]);
      expect(await engine.check('a: 1\nb: c\n')).toEqual({ ok: false, message: 'b: reference "c" not found', line: 2, column: 4 });
    } finally {
      await engine.close();
    }
  });

  it('kills a run that outlives the timeout and fails only that run', async () => {
    // Long enough for the fake's own start (it compiles CUE's WebAssembly in every process), also on a busy machine.
    const engine = createReferenceEvaluator({ ...CONFIG, timeout: 10_000 });
    try {
      process.env.FAKE_CUE_HANG = '1';
      const [[result]] = await engine.evaluate([entity('a: int\n')], [resource('a', { a: 1 })]);
      expect(result).toEqual({ satisfiesPolicy: false, isError: true, errors: ['CUE did not finish within 10000 ms (cue-config.timeout)'] });
      delete process.env.FAKE_CUE_HANG;
      expect(await engine.evaluate([entity('a: int\n')], [resource('a', { a: 1 })])).toEqual([[PASS]]);
    } finally {
      await engine.close();
    }
  });

  it('fails a run whose output passes max-output-bytes', async () => {
    const resources = Array.from({ length: 40 }, (_, i) => resource(`r${i}`, { name: i }));
    const engine = createReferenceEvaluator({ ...CONFIG, maxOutputBytes: 1024 });
    try {
      const [results] = await engine.evaluate([entity('name: string\n')], resources);
      expect(new Set(results.map((result) => JSON.stringify(result)))).toEqual(
        new Set([JSON.stringify({ satisfiesPolicy: false, isError: true, errors: ['CUE printed more than 1024 bytes (cue-config.max-output-bytes)'] })]),
      );
    } finally {
      await engine.close();
    }
  });
});

describe('the output cap of the WebAssembly workers', () => {
  it('fails a run whose output passes max-output-bytes', async () => {
    const engine = new CueReferenceEvaluator(new CueWorkerPool({ workers: 1, timeoutMs: 20_000, recycleAfterRuns: 200, maxOutputBytes: 1024 }));
    try {
      const [results] = await engine.evaluate(
        [entity('name: string\n')],
        Array.from({ length: 40 }, (_, i) => resource(`r${i}`, { name: i })),
      );
      expect(results[0]).toEqual({ satisfiesPolicy: false, isError: true, errors: ['CUE printed more than 1024 bytes (cue-config.max-output-bytes)'] });
      expect(results[39]).toEqual(results[0]);
    } finally {
      await engine.close();
    }
  });
});

describe('checkCueExecutable (start-up)', () => {
  const settings = (cueProcessPath: string) => ({ cueConfig: { ...CONFIG, cueProcessPath } });

  it('returns the version the executable prints', async () => {
    expect(await checkCueExecutable(settings(FAKE_CUE))).toBe(`cue version (devel) js/wasm (${FAKE_CUE})`);
  });

  it('fails on a path that cannot be run', async () => {
    await expect(checkCueExecutable(settings('/nonexistent/cue'))).rejects.toThrow(
      'cue-config.cue-process-path: `/nonexistent/cue version` failed: could not run /nonexistent/cue: spawn /nonexistent/cue ENOENT',
    );
  });

  it('fails on an executable that does not print a cue version', async () => {
    process.env.FAKE_CUE_VERSION = 'Python 3.12.1';
    await expect(checkCueExecutable(settings(FAKE_CUE))).rejects.toThrow(
      `cue-config.cue-process-path: \`${FAKE_CUE} version\` did not print a cue version: Python 3.12.1`,
    );
  });
});
