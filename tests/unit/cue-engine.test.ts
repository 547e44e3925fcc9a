import type { NativeProgram } from '@cgp/cue';
import { describe, expect, it, vi } from 'vitest';

import { createCueEngine, disagree, type ReferenceEvaluator } from '#lib/governance/engines/cue/cue-engine';
import { engineResultOf, NATIVE_CUE_LIBRARY, type NativeCueLibrary } from '#lib/governance/engines/cue/native-evaluator';
import { createReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';
import type { CueCompileCheck, EngineResult, EvaluatorDisagreement } from '#lib/governance/engines/engine';

import { entity, PASS, resource, violation } from './cue-fixtures';

const NATIVE = { evaluator: 'native', maxSteps: 1_000_000 } as const;
const UNSUPPORTED_POLICY = 'import "crypto/sha256"\n\nname: string\nsum: sha256.Sum256("a")\n';

/** A WebAssembly engine that answers `answer` to every pair and records what it was asked. */
function fakeWasm(answer: EngineResult = violation('name: incomplete value string'), check: CueCompileCheck = { ok: true }) {
  const engine = {
    evaluated: [] as string[],
    checked: [] as string[],
    evaluate: vi.fn(async (entities: readonly { id: string }[], resources: readonly unknown[]) => {
      engine.evaluated.push(...entities.map((e) => e.id));
      return entities.map(() => resources.map(() => answer));
    }),
    check: vi.fn(async (script: string) => {
      engine.checked.push(script);
      return check;
    }),
  };
  const factory = vi.fn(async (): Promise<ReferenceEvaluator> => engine);
  return { engine, factory };
}

/** The real native evaluator, counting its compiles. */
function countingNative(): NativeCueLibrary & { compiles: number } {
  const counting = {
    compiles: 0,
    compile: (script: string, maxSteps: number) => {
      counting.compiles++;
      return NATIVE_CUE_LIBRARY.compile(script, maxSteps);
    },
    evaluate: NATIVE_CUE_LIBRARY.evaluate,
  };
  return counting;
}

describe('the native setting', () => {
  it('evaluates in process without ever asking for the WebAssembly engine, compiling each script once', async () => {
    const wasm = fakeWasm();
    const native = countingNative();
    const evaluators = createCueEngine(NATIVE, wasm.factory, native);
    const policy = entity('name: string\n');
    for (let i = 0; i < 3; i++)
      expect(await evaluators.evaluate([policy], [resource('a', { name: 'a' }), resource('b', {})])).toEqual([
        [PASS, violation('name: incomplete value string')],
      ]);
    expect(wasm.factory).not.toHaveBeenCalled();
    expect(native.compiles).toBe(1);
    // A draft edited in place keeps its id and version: its new text is compiled again.
    await evaluators.evaluate([{ ...policy, cueScript: 'name: "a"\n' }], [resource('a', { name: 'a' })]);
    expect(native.compiles).toBe(2);
  });

  it('sends what the native evaluator does not support, and what was saved for wasm, to the WebAssembly engine', async () => {
    const wasm = fakeWasm(PASS);
    const evaluators = createCueEngine(NATIVE, wasm.factory);
    const [unsupported, savedForWasm, native] = [
      entity(UNSUPPORTED_POLICY),
      entity('name: string\n', { evaluator: 'wasm' }),
      entity('name: string\n', { evaluator: 'native' }),
    ];
    const results = await evaluators.evaluate([unsupported, savedForWasm, native], [resource('a', {})]);
    expect(results).toEqual([[PASS], [PASS], [violation('name: incomplete value string')]]);
    expect(wasm.engine.evaluated).toEqual([unsupported.id, savedForWasm.id]);
  });

  it('evaluates a policy the native evaluator does not support with real CUE in WebAssembly', async () => {
    const wasm = createReferenceEvaluator({ timeout: 20_000, workers: 1, recycleAfterRuns: 200, maxOutputBytes: 1 << 20 });
    try {
      const results = await createCueEngine(NATIVE, async () => wasm).evaluate(
        [entity(UNSUPPORTED_POLICY)],
        [resource('a', { name: 'a' }), resource('b', { name: 1 })],
      );
      expect(results[0][0]).toEqual(PASS);
      expect(results[0][1]).toMatchObject({
        satisfiesPolicy: false,
        isError: false,
        errors: [expect.stringMatching(/^name: conflicting values 1 and string/)],
      });
    } finally {
      await wasm.close();
    }
  });

  it('fails every pair of a policy saved for native that the native evaluator refuses, with the line of the script, and only those', async () => {
    const evaluators = createCueEngine(NATIVE, fakeWasm().factory);
    const [broken, fine] = await evaluators.evaluate(
      [entity('name: string\nsize: limit\n', { evaluator: 'native' }), entity('name: string\n', { evaluator: 'native' })],
      [resource('a', { name: 'a' }), resource('b', { name: 'b' })],
    );
    expect(broken).toHaveLength(2);
    for (const result of broken)
      expect(result).toMatchObject({
        satisfiesPolicy: false,
        isError: true,
        errors: [expect.stringMatching(/reference "limit" not found:\n {4}policy\.cue:2:7$/)],
      });
    expect(fine).toEqual([PASS, PASS]);
  });

  it('leaves a version saved before the choice existed that the native evaluator refuses to CUE v0.4, which judged it until then', async () => {
    const wasm = fakeWasm(PASS);
    const [[result]] = await createCueEngine(NATIVE, wasm.factory).evaluate([entity('name: string\nsize: limit\n')], [resource('a', { name: 'a' })]);
    expect(result).toEqual(PASS);
    expect(wasm.engine.evaluated).toHaveLength(1);
  });

  it('fails a pair that exhausts cue-config.max-steps, never passes it', async () => {
    // Cheap on its own (the save check), costly with the descriptor's 900 products.
    const costly = entity('items: [...int]\nproducts: [for i in items for j in items {i * j}]\nn: len(products)\n');
    const descriptor = { items: Array.from({ length: 30 }, (_, i) => i) };
    const wasm = fakeWasm();
    const [[result]] = await createCueEngine({ evaluator: 'native', maxSteps: 500 }, wasm.factory).evaluate([costly], [resource('a', descriptor)]);
    expect(result).toEqual({ satisfiesPolicy: false, isError: true, errors: ['the evaluation took more than 500 steps (cue-config.max-steps)'] });
    expect(wasm.factory).not.toHaveBeenCalled();
    const [[roomy]] = await createCueEngine(NATIVE, fakeWasm().factory).evaluate([costly], [resource('a', descriptor)]);
    expect(roomy).toEqual(PASS);
  });

  it('fails the pairs of the WebAssembly policies when that engine cannot start, and only those', async () => {
    const evaluators = createCueEngine(NATIVE, () => Promise.reject(new Error('no worker')));
    const results = await evaluators.evaluate([entity(UNSUPPORTED_POLICY), entity('name: string\n')], [resource('a', { name: 'a' })]);
    expect(results).toEqual([[{ satisfiesPolicy: false, isError: true, errors: ['the reference CUE evaluator could not start: no worker'] }], [PASS]]);
  });

  it('fails a pair whose native evaluation throws, although the evaluator promises not to', async () => {
    const throwing: NativeCueLibrary = {
      compile: NATIVE_CUE_LIBRARY.compile,
      evaluate: () => {
        throw new Error('boom');
      },
    };
    const [[result]] = await createCueEngine(NATIVE, fakeWasm().factory, throwing).evaluate([entity('name: string\n')], [resource('a', { name: 'a' })]);
    expect(result).toEqual({ satisfiesPolicy: false, isError: true, errors: ['the native evaluator failed: boom'] });
  });
});

describe('what only CUE itself can judge', () => {
  it('sends the pairs the native evaluator defers to the reference evaluator, and only those (issue 45)', async () => {
    const wasm = fakeWasm(PASS);
    const policy = entity('import "net"\nhost: net.FQDN\n');
    const hosts = [
      resource('plain', { host: 'example.com' }),
      resource('unicode', { host: 'xn--bcher-kva.example' }),
      resource('bad', { host: 'my--service.example' }),
    ];
    const [results] = await createCueEngine(NATIVE, wasm.factory).evaluate([policy], hosts);
    // Judged natively: the plain name passes, `my--service` fails (CUE's IDNA hyphen rule); the Unicode label is CUE's answer.
    expect(results.map((result) => result.satisfiesPolicy)).toEqual([true, true, false]);
    expect(wasm.engine.evaluate).toHaveBeenCalledTimes(1);
    expect(wasm.engine.evaluate.mock.calls[0][1]).toEqual([hosts[1]]);
  });
});

describe("the native evaluator's results", () => {
  it('maps the native library verdicts to the platform result: a failure is never a pass', () => {
    expect(engineResultOf({ kind: 'satisfied' })).toEqual(PASS);
    expect(engineResultOf({ kind: 'satisfied', value: 0.5 })).toEqual({ ...PASS, value: 0.5 });
    expect(engineResultOf({ kind: 'violated', violations: ['name: conflicting values'] })).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['name: conflicting values'],
    });
    expect(engineResultOf({ kind: 'failed', reason: 'out of steps' })).toEqual({ satisfiesPolicy: false, isError: true, errors: ['out of steps'] });
  });
});

describe('the shadow setting', () => {
  /** A native evaluator that passes everything: it disagrees with any violation. */
  const lenient: NativeCueLibrary = { compile: () => ({ ok: true, program: {} as NativeProgram }), evaluate: () => ({ kind: 'satisfied' }) };

  it('answers with the WebAssembly verdicts and reports each pair on which native differs, with both verdicts', async () => {
    const wasmVerdict = violation('name: incomplete value string');
    const wasm = fakeWasm(wasmVerdict);
    const heard: EvaluatorDisagreement[] = [];
    const policy = entity('name: string\n');
    const results = await createCueEngine({ evaluator: 'shadow', maxSteps: 1000 }, wasm.factory, lenient).evaluate(
      [policy],
      [resource('a', {}), resource('b', {})],
      undefined,
      (d) => heard.push(d),
    );
    expect(results).toEqual([[wasmVerdict, wasmVerdict]]);
    expect(heard).toEqual([
      { entity: { id: policy.id, version: 1, kind: 'policy' }, resourceId: 'a', native: PASS, wasm: wasmVerdict },
      { entity: { id: policy.id, version: 1, kind: 'policy' }, resourceId: 'b', native: PASS, wasm: wasmVerdict },
    ]);
  });

  it('reports nothing when both agree', async () => {
    const heard: EvaluatorDisagreement[] = [];
    const results = await createCueEngine({ evaluator: 'shadow', maxSteps: 1000 }, fakeWasm(PASS).factory, lenient).evaluate(
      [entity('a: 1\n')],
      [resource('a', {})],
      undefined,
      (d) => heard.push(d),
    );
    expect(results).toEqual([[PASS]]);
    expect(heard).toEqual([]);
  });
});

describe('the wasm setting', () => {
  it('never compiles natively, neither to evaluate nor to check', async () => {
    const native = countingNative();
    const wasm = fakeWasm(PASS);
    const evaluators = createCueEngine({ evaluator: 'reference', maxSteps: 1000 }, wasm.factory, native);
    expect(await evaluators.evaluate([entity('name: string\n', { evaluator: 'native' })], [resource('a', {})])).toEqual([[PASS]]);
    expect(await evaluators.check('name: string\n')).toEqual({ ok: true, evaluator: 'wasm', evaluatorReason: 'cue-config.evaluator is reference' });
    expect(native.compiles).toBe(0);
  });
});

describe('the check when a policy is saved', () => {
  it('chooses native for a script the native evaluator compiles, without asking WebAssembly', async () => {
    const wasm = fakeWasm(PASS, { ok: false, message: "expected label or ':', found '!'" });
    // Required fields: the native evaluator has them, CUE v0.4 cannot parse them.
    expect(await createCueEngine(NATIVE, wasm.factory).check('name!: string\n')).toEqual({ ok: true, evaluator: 'native', evaluatorReason: null });
    expect(wasm.factory).not.toHaveBeenCalled();
  });

  it('leaves a script the native evaluator does not support to the WebAssembly check, naming the reason', async () => {
    const accepted = await createCueEngine(NATIVE, fakeWasm().factory).check(UNSUPPORTED_POLICY);
    expect(accepted).toEqual({ ok: true, evaluator: 'wasm', evaluatorReason: 'the package "crypto/sha256" is not in the native evaluator' });
    const refusal = { ok: false, message: 'a: conflicting values 2 and 1', line: 4, column: 1 } as const;
    expect(await createCueEngine(NATIVE, fakeWasm(PASS, refusal).factory).check(UNSUPPORTED_POLICY)).toEqual(refusal);
  });

  it('saves a script only the native evaluator refuses for wasm, and refuses one both refuse with the native message', async () => {
    const script = 'name: string\nsize: limit\n';
    expect(await createCueEngine(NATIVE, fakeWasm().factory).check(script)).toEqual({
      ok: true,
      evaluator: 'wasm',
      evaluatorReason: expect.stringMatching(/^the native evaluator refused it: .*reference "limit" not found$/),
    });
    const wasmRefusal = { ok: false, message: 'size: reference "limit" not found (WebAssembly)', line: 2, column: 7 } as const;
    expect(await createCueEngine(NATIVE, fakeWasm(PASS, wasmRefusal).factory).check(script)).toEqual({
      ok: false,
      message: expect.stringMatching(/reference "limit" not found$/),
      line: 2,
      column: 7,
    });
  });

  it('decides like native under shadow', async () => {
    expect(await createCueEngine({ evaluator: 'shadow', maxSteps: 1000 }, fakeWasm().factory).check('name: string\n')).toEqual({
      ok: true,
      evaluator: 'native',
      evaluatorReason: null,
    });
  });
});

describe('a disagreement', () => {
  it('is a different verdict, a different ability to judge, or a different path in the first error', () => {
    const at = (path: string) => violation(`${path}: incomplete value string`);
    expect(disagree(PASS, PASS)).toBe(false);
    expect(disagree(at('name'), violation('name: conflicting values 1 and string'))).toBe(false);
    expect(disagree(PASS, at('name'))).toBe(true);
    expect(disagree(at('name'), { ...at('name'), isError: true })).toBe(true);
    expect(disagree(at('name'), at('owner'))).toBe(true);
  });
});
