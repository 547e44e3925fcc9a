/**
 * Every builtin the native CUE evaluator has, called with inputs from its own tricky domain
 * (tests/support/builtin-domains.ts) and judged by CUE v0.4 and natively
 * (tests/support/builtin-differential.ts): never does the native evaluator pass a call CUE fails,
 * except where docs/cue-policies.md says why, and never does it throw anything but a CUE error.
 * The longer run is `npm run cue:fuzz -- --builtins` (docs/cue-policies.md, "Every builtin, on its own domain").
 */
import { readFileSync } from 'node:fs';

import { PACKAGES, universe } from '@cgp/cue/builtins';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createReferenceEvaluator, type CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';

import { BUILTIN_CI_INPUTS, BUILTIN_CI_SEED, callsOf, formatReport, judgeBuiltin, nativeBuiltins } from '../support/builtin-differential';
import { BUILTIN_ARGUMENTS, NOT_IN_V04 } from '../support/builtin-domains';

const BUILTINS = nativeBuiltins(universe, PACKAGES.values());
const byPackage = new Map<string, string[]>();
for (const name of BUILTINS.filter((builtin) => !(builtin in NOT_IN_V04))) {
  const group = name.includes('.') ? name.split('.')[0] : '(predeclared)';
  byPackage.set(group, [...(byPackage.get(group) ?? []), name]);
}

describe('every builtin on its own domain, against CUE v0.4', () => {
  let wasm: CueReferenceEvaluator;
  beforeAll(() => {
    wasm = createReferenceEvaluator({ timeout: 120_000, workers: 2, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 });
  });
  afterAll(() => wasm.close());

  it('has a domain for every builtin, or the reason there is no CUE v0.4 to judge it', () => {
    expect(BUILTINS.filter((name) => !BUILTIN_ARGUMENTS[name] && !(name in NOT_IN_V04))).toEqual([]);
    expect(Object.keys(BUILTIN_ARGUMENTS).filter((name) => !BUILTINS.includes(name))).toEqual([]);
    expect(Object.keys(NOT_IN_V04).filter((name) => !BUILTINS.includes(name))).toEqual([]);
  });

  it('lists every builtin in docs/cue-policies.md with the inputs its differential ran', () => {
    const docs = readFileSync(new URL('../../docs/cue-policies.md', import.meta.url), 'utf8');
    const rows = new Set([...docs.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]));
    expect(BUILTINS.filter((name) => !rows.has(name))).toEqual([]);
  });

  for (const [name, builtins] of byPackage) {
    it(`${name}: no call passes natively that CUE fails, and nothing but CUE errors`, async () => {
      const reports = await Promise.all(builtins.map((builtin) => judgeBuiltin(wasm, builtin, callsOf(builtin, BUILTIN_CI_INPUTS, BUILTIN_CI_SEED))));
      console.log(formatReport(reports));
      const wrong = reports.flatMap((report) => report.differences.filter((entry) => entry.outcome === 'native-only' || entry.outcome === 'fault'));
      expect(wrong).toEqual([]);
      // Each builtin was judged on inputs CUE computes and inputs it refuses, or the comparison proves little.
      for (const report of reports) expect({ builtin: report.builtin, judged: report.counts.agreed > 0 }).toEqual({ builtin: report.builtin, judged: true });
    });
  }
});
