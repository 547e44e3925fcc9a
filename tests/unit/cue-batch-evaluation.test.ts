import { describe, expect, it } from 'vitest';

import { evaluateBatch } from '#lib/governance/engines/cue/batch-evaluation';
import type { CueJob, CueOutput, CueRunner } from '#lib/governance/engines/cue/cue-runner';
import { policySource } from '#lib/governance/engines/cue/policy-source';
import type { EngineResult } from '#lib/governance/engines/engine';

/** A runner answering from a script, recording the resources of every run. */
function scriptedRunner(answer: (batch: string, tag: string) => string): CueRunner & { runs: string[][] } {
  const runs: string[][] = [];
  return {
    concurrency: 1,
    runs,
    async run(job: CueJob): Promise<CueOutput> {
      const batch = job.files['batch.cue'];
      const tag = /^S([0-9a-f]+): int$/m.exec(batch)?.[1] as string;
      runs.push([...new Set(batch.match(/^r\d+(?=: )/gm))]);
      return { code: 1, stdout: '', stderr: answer(batch, tag) };
    },
    async close() {},
  };
}

async function evaluate(runner: CueRunner, entities: number, resources: number): Promise<Map<string, EngineResult>> {
  const results = new Map<string, EngineResult>();
  await evaluateBatch(
    runner,
    {
      requireConcrete: true,
      entities: Array.from({ length: entities }, (_, index) => ({ index, source: policySource('a: int\n'), metric: false })),
      resources: Array.from({ length: resources }, (_, index) => index),
    },
    () => '{}',
    (entity, resource, result) => {
      expect(results.has(`${entity}/${resource}`)).toBe(false);
      results.set(`${entity}/${resource}`, result);
    },
  );
  return results;
}

describe('the attribution loop', () => {
  it('narrows a message that names no policy and no resource down to its pair', async () => {
    // CUE fails the whole run with a message of its own whenever resource 3 is in it.
    const runner = scriptedRunner((batch, tag) => (/^r3: /m.test(batch) ? 'something odd\n' : `S${tag}: incomplete value int\n`));
    const results = await evaluate(runner, 2, 6);
    expect(results.size).toBe(12);
    for (const [pair, result] of results) {
      expect(result, pair).toEqual(
        pair.endsWith('/3') ? { satisfiesPolicy: false, isError: true, errors: ['something odd'] } : { satisfiesPolicy: true, isError: false, errors: [] },
      );
    }
    // The run of both policies, then each policy alone: halves until resource 3 is alone.
    expect(runner.runs.slice(0, 2)).toEqual([
      ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'],
      ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'],
    ]);
    expect(runner.runs.filter((run) => run.length === 1 && run[0] === 'r3')).toHaveLength(2);
  });

  it('runs again after conflicts, until the sentinel says the report is complete', async () => {
    const runner = scriptedRunner((batch, tag) =>
      /^r1: /m.test(batch) ? `P${tag}_0.r1.a: conflicting values "x" and int\n` : `P${tag}_0.r2.a: incomplete value int\nS${tag}: incomplete value int\n`,
    );
    const results = await evaluate(runner, 1, 3);
    expect(runner.runs).toEqual([
      ['r0', 'r1', 'r2'],
      ['r0', 'r2'],
    ]);
    expect([...results.entries()].sort()).toEqual([
      ['0/0', { satisfiesPolicy: true, isError: false, errors: [] }],
      ['0/1', { satisfiesPolicy: false, isError: false, errors: ['a: conflicting values "x" and int'] }],
      ['0/2', { satisfiesPolicy: false, isError: false, errors: ['a: incomplete value int'] }],
    ]);
  });
});
