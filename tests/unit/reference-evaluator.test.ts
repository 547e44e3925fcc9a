import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createCueEngine } from '#lib/governance/engines/cue/cue-engine';
import { CueRunFailure, type CueRunner } from '#lib/governance/engines/cue/cue-runner';
import { CueWorkerPool } from '#lib/governance/engines/cue/cue-worker-pool';
import { createReferenceEvaluator, CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';
import type { PolicyEngine } from '#lib/governance/engines/engine';

import { entity, MIXED, MIXED_EXPECTED, PASS, PRODUCT_POLICY, resource, violation } from './cue-fixtures';

const CONFIG = { timeout: 20_000, workers: 2, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 };

/** The two paths every behaviour below must share; the native one must never need the WebAssembly workers. */
const PATHS = [
  {
    path: 'native, in process',
    native: true,
    create: () => {
      const evaluators = createCueEngine({ evaluator: 'native', maxSteps: 1_000_000 }, () => Promise.reject(new Error('the WebAssembly engine was started')));
      // As saved for native: a script the native evaluator refuses is refused here, not left to v0.4.
      const engine: PolicyEngine = {
        evaluate: (entities, resources, signal) =>
          evaluators.evaluate(
            entities.map((e) => ({ ...e, evaluator: 'native' as const })),
            resources,
            signal,
          ),
      };
      return { engine, close: async () => {} };
    },
  },
  {
    path: 'WebAssembly workers',
    native: false,
    create: () => {
      const engine = createReferenceEvaluator(CONFIG);
      return { engine, close: () => engine.close() };
    },
  },
];

describe.each(PATHS)('the CUE engine ($path)', ({ create, native }) => {
  let engine: PolicyEngine;
  let close: () => Promise<void>;
  beforeAll(() => {
    ({ engine, close } = create());
  });
  afterAll(() => close());

  it('passes a compliant descriptor and reports the violations of another, with paths and lines of the policy', async () => {
    const results = await engine.evaluate(
      [entity('name: string\nsize: int & <10\n')],
      [resource('a', { name: 'a', size: 3 }), resource('b', { name: 'b', size: 30 })],
    );
    expect(results).toEqual([[PASS, violation('size: invalid value 30 (out of bound <10):\n    policy.cue:2:13')]]);
  });

  it('attributes every error of a mixed batch to its own resource: conflicts, a missing field, both', async () => {
    const results = await engine.evaluate([entity(PRODUCT_POLICY)], MIXED);
    // Natively messages are sorted by path; v0.4 sorts them by positions (docs/cue-policies.md, "Order of messages").
    const byPath = (result: (typeof MIXED_EXPECTED)[number]) => ({ ...result, errors: [...result.errors].sort() });
    expect(results).toEqual([native ? MIXED_EXPECTED.map(byPath) : MIXED_EXPECTED]);
  });

  it('treats a missing field as a violation only when requireConcrete is true', async () => {
    const script = 'name: string\nowner: email: string\nsize?: <10\n';
    const resources = [resource('missing', { name: 'a' }), resource('conflict', { name: 'a', owner: { email: 'e' }, size: 12 })];
    const [concrete, conflictsOnly] = await engine.evaluate([entity(script), entity(script, { requireConcrete: false })], resources);
    expect(concrete).toEqual([violation('owner.email: incomplete value string'), violation('size: invalid value 12 (out of bound <10):\n    policy.cue:3:8')]);
    expect(conflictsOnly).toEqual([PASS, violation('size: invalid value 12 (out of bound <10):\n    policy.cue:3:8')]);
  });

  it('does not let a broken policy spoil the others of its batch', async () => {
    const entities = [
      entity('name: string\n'),
      entity('name: string\nsize: limit\n'),
      entity('name: string\nlabels: {\n'),
      entity('size: <10\n', { requireConcrete: false }),
      entity('[1, 2]\n'),
    ];
    const resources = [resource('a', { name: 'a', size: 3 }), resource('b', { size: 30 })];
    const [plain, unknownReference, syntax, bound, list] = await engine.evaluate(entities, resources);
    expect(plain).toEqual([PASS, violation('name: incomplete value string')]);
    const notFound = { satisfiesPolicy: false, isError: true, errors: ['size: reference "limit" not found:\n    policy.cue:2:7'] };
    expect(unknownReference).toEqual([notFound, notFound]);
    // The end of the script: natively where it is (after its last line break), v0.4 on its last line.
    expect(syntax[0]).toEqual({ satisfiesPolicy: false, isError: true, errors: [`expected '}', found 'EOF':\n    policy.cue:${native ? '3:1' : '2:11'}`] });
    expect(syntax[1]).toEqual(syntax[0]);
    expect(bound).toEqual([PASS, violation('size: invalid value 30 (out of bound <10):\n    policy.cue:1:7')]);
    expect(list[0].isError).toBe(true);
    expect(list[0].errors[0]).toMatch(
      /^the script must be a struct \(fields at its top level\), not a list or a single value: conflicting values \[1,2\] and \{\.\.\.\}/,
    );
  });

  it('refuses a script that would reach out of its own struct', async () => {
    const [[result]] = await engine.evaluate([entity('a: 1 }\nsneaky: {\n')], [resource('a', {})]);
    expect(result).toEqual({ satisfiesPolicy: false, isError: true, errors: ["expected 'EOF', found '}':\n    policy.cue:1:6"] });
  });

  it('gives a metric the number at its top-level `value`, and a violation when there is none', async () => {
    const metric = (script: string, requireConcrete = true) => entity(script, { kind: 'metric', requireConcrete });
    const resources = [resource('two', { components: [{}, {}] }), resource('none', {}), resource('wrong', { components: 'x' })];
    const [count, missing, text, lenient] = await engine.evaluate(
      [
        metric('components: [...]\nvalue: len(components)\n'),
        metric('components: [...]\n'),
        metric('value: "many"\n'),
        metric('components: [...]\nvalue: len(components)\n', false),
      ],
      resources,
    );
    expect(count[0]).toEqual({ ...PASS, value: 2 });
    expect(count[1]).toEqual({ ...PASS, value: 0 });
    expect(count[2]).toEqual(violation('components: conflicting values "x" and [...] (mismatched types string and list):\n    metric.cue:1:13'));
    expect(missing[0]).toEqual(violation('value: incomplete value number'));
    expect(text[0]).toEqual(violation('value: conflicting values "many" and number (mismatched types string and number):\n    metric.cue:1:8'));
    expect(lenient).toEqual(count);
  });

  it('evaluates previous_vs_current descriptors like any other', async () => {
    const script = 'previous: null | {version: string}\ncurrent: version: string\nif previous != null {\n\tcurrent: version: !=previous.version\n}\n';
    const results = await engine.evaluate(
      [entity(script)],
      [
        resource('first', { previous: null, current: { version: '1' } }),
        resource('bumped', { previous: { version: '1' }, current: { version: '2' } }),
        resource('same', { previous: { version: '1' }, current: { version: '1' } }),
      ],
    );
    expect(results[0].slice(0, 2)).toEqual([PASS, PASS]);
    expect(results[0][2].satisfiesPolicy).toBe(false);
    expect(results[0][2].errors[0]).toMatch(/^current\.version: invalid value "1" \(out of bound !="1"\)/);
  });

  it('fails only the resource whose descriptor cannot be written as JSON (YAML aliases can make one cyclic; JSON text cannot)', async () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const [[first, broken, last]] = await engine.evaluate(
      [entity('name: string\n')],
      [
        resource('a', { name: 'a' }),
        { ...resource('cyclic', {}), content: '&loop\nname: loop\nself: *loop\n', descriptor: cyclic },
        resource('c', { name: 'c' }),
      ],
    );
    expect([first, last]).toEqual([PASS, PASS]);
    expect(broken).toMatchObject({
      satisfiesPolicy: false,
      isError: true,
      errors: [expect.stringMatching(/^the descriptor of cyclic cannot be written as JSON: Converting circular structure to JSON/)],
    });
  });

  it('answers an aborted evaluation with error results, not passes', async () => {
    const controller = new AbortController();
    controller.abort();
    const [[result]] = await engine.evaluate([entity('a: int\n')], [resource('a', { a: 1 })], controller.signal);
    expect(result).toEqual({ satisfiesPolicy: false, isError: true, errors: ['the evaluation was aborted before CUE finished'] });
  });
});

describe('the CUE engine (WebAssembly workers) on its own', () => {
  let engine: CueReferenceEvaluator;
  beforeAll(() => {
    engine = createReferenceEvaluator(CONFIG);
  });
  afterAll(() => engine.close());

  it('splits large evaluations into several runs and still attributes every error', async () => {
    const pool = new CueWorkerPool({ workers: 2, timeoutMs: 20_000, recycleAfterRuns: 3, maxOutputBytes: 1 << 20 });
    const runs: string[][] = [];
    const counting: CueRunner = {
      concurrency: pool.concurrency,
      run: (job, signal) => {
        runs.push([...job.args]);
        return pool.run(job, signal);
      },
      close: () => pool.close(),
    };
    const small = new CueReferenceEvaluator(counting, { maxRunBytes: 400, minRunBytes: 100 });
    try {
      const resources = Array.from({ length: 24 }, (_, i) => resource(`r${i}`, i % 3 === 0 ? { size: 20 + i } : i % 3 === 1 ? {} : { size: 1 }));
      const [results] = await small.evaluate([entity('size: int & <20\n')], resources);
      results.forEach((result, i) => {
        if (i % 3 === 0) expect(result).toEqual(violation(`size: invalid value ${20 + i} (out of bound <20):\n    policy.cue:1:13`));
        else if (i % 3 === 1) expect(result).toEqual(violation('size: incomplete value <20 & int'));
        else expect(result).toEqual(PASS);
      });
      // Two chunks of twelve, each run twice: conflicts first, then the missing fields CUE held back.
      expect(runs.map((args) => args[0])).toEqual(['vet', 'vet', 'vet', 'vet']);
    } finally {
      await small.close();
    }
  });

  describe('check', () => {
    it('accepts a script that compiles', async () => {
      expect(await engine.check('import "strings"\n\nname: strings.MinRunes(3)\n')).toEqual({ ok: true });
    });

    it('refuses a script that does not compile, with the line and column in the script', async () => {
      expect(await engine.check('name: string\n\nsize: limit + 1\n')).toEqual({ ok: false, message: 'size: reference "limit" not found', line: 3, column: 7 });
      expect(await engine.check('package p\nimport "nope/nothing"\na: 1\n')).toEqual({
        ok: false,
        message: 'package "nope/nothing" not found',
        line: 2,
        column: 8,
      });
      expect(await engine.check('a: {\n  b: 1\n')).toEqual({ ok: false, message: "expected '}', found 'EOF'", line: 2, column: 8 });
    });

    it('refuses a script whose own declarations conflict, and one that is not a struct', async () => {
      expect(await engine.check('a: 1\na: 2\n')).toEqual({ ok: false, message: 'a: conflicting values 2 and 1', line: 1, column: 4 });
      expect(await engine.check('"just a string"\n')).toMatchObject({ ok: false, message: expect.stringMatching(/^the script must be a struct/), line: 1 });
    });
  });
});

describe('a run that takes too long', () => {
  // A million elements: minutes for CUE, so a timeout long enough for a fresh worker's start on a busy machine still stops it.
  const slow = () => entity('import "list"\nx: [for i in list.Range(0, 1000, 1) for j in list.Range(0, 1000, 1) {i * j}]\nn: len(x)\n');

  it('is stopped when the evaluation is aborted', async () => {
    const engine = createReferenceEvaluator({ ...CONFIG, workers: 1 });
    try {
      expect(await engine.evaluate([entity('a: int\n')], [resource('a', { a: 1 })])).toEqual([[PASS]]); // warm: the abort hits a running run
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const [[aborted]] = await engine.evaluate([slow()], [resource('a', {})], controller.signal);
      expect(aborted).toEqual({ satisfiesPolicy: false, isError: true, errors: ['the evaluation was aborted before CUE finished'] });
      expect(await engine.evaluate([entity('a: int\n')], [resource('a', { a: 1 })])).toEqual([[PASS]]);
    } finally {
      await engine.close();
    }
  });

  it('is failed and its worker replaced; the next run works', async () => {
    const engine = createReferenceEvaluator({ ...CONFIG, workers: 1, timeout: 6000 });
    try {
      const [[timedOut]] = await engine.evaluate([slow()], [resource('a', {})]);
      expect(timedOut).toEqual({ satisfiesPolicy: false, isError: true, errors: ['CUE did not finish within 6000 ms (cue-config.timeout)'] });
      const [[next]] = await engine.evaluate([entity('a: int\n')], [resource('a', { a: 1 })]);
      expect(next).toEqual(PASS);
    } finally {
      await engine.close();
    }
  });

  it('fails a check that does not finish as over the limit, so the script is refused rather than retried', async () => {
    const engine = createReferenceEvaluator({ ...CONFIG, workers: 1, timeout: 6000 });
    try {
      const failure = await engine.check(slow().cueScript as string).catch((error) => error);
      expect(failure).toBeInstanceOf(CueRunFailure);
      expect(failure).toMatchObject({ overLimit: true, message: 'CUE did not finish within 6000 ms (cue-config.timeout)' });
      await expect(engine.check('a: int\n')).resolves.toEqual({ ok: true });
    } finally {
      await engine.close();
    }
  });

  it("fails a check whose script exhausts CUE's stack as over the limit too, and the next run works", async () => {
    const engine = createReferenceEvaluator({ ...CONFIG, workers: 1 });
    try {
      const failure = await engine.check(`a: ${'('.repeat(20_000)}1${')'.repeat(20_000)}\n`).catch((error) => error);
      expect(failure).toBeInstanceOf(CueRunFailure);
      expect(failure.overLimit).toBe(true);
      expect(failure.message).toMatch(/^CUE ran out of stack \(the input nests or chains expressions too deeply\)/);
      await expect(engine.check('a: int\n')).resolves.toEqual({ ok: true });
    } finally {
      await engine.close();
    }
  });
});
