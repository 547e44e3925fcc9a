/**
 * Bench of regular expressions in CUE policies (RE2, docs/cue-policies.md):
 *   (i) a regex-heavy policy, the Witboost gallery's dbt.cue (tests/fixtures/witboost-policies-gallery),
 *       in bulk on 1000 dbt workload descriptors: the native evaluator vs the WebAssembly path (CUE v0.4,
 *       which cannot parse the required fields `!` of dbt.cue: it gets the same script with them removed),
 *       evaluations/s;
 *   (j) `^(a+)+$`, catastrophic for a backtracking engine, natively on 16, 32, 48 and 1000 `a`s and a `!`
 *       (no match): microseconds per match and per evaluation, which grow linearly with the text; and
 *       JavaScript's backtracking RegExp on 16, 20 and 24 characters for contrast (it doubles per character).
 * Run alone with `node --import tsx bench/cue-regex.ts`, or through `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { compileNative, evaluateNative, type NativeProgram } from '@cgp/cue';
import { Regexp, regexpOf } from '@cgp/cue/regexp';
import YAML from 'yaml';

import { CueWorkerPool } from '#lib/governance/engines/cue/cue-worker-pool';
import { engineResultOf } from '#lib/governance/engines/cue/native-evaluator';
import { CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';
import type { EngineResource, EngineResult } from '#lib/governance/engines/engine';

import { policyEntity } from './cue-throughput';

const DBT = readFileSync(new URL('../tests/fixtures/witboost-policies-gallery/actual_policies/dbt.cue', import.meta.url), 'utf8');
const DBT_DESCRIPTOR = new URL('../tests/fixtures/witboost-gallery-descriptors/dbt.compliant.yaml', import.meta.url);
/** The defaults of cue-config (lib/settings/schema.ts), as bench/cue-throughput.ts runs them. */
const WASM = { workers: 2, timeoutMs: 20_000, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 };
const BULK = 1000;
const ROUNDS = 10;
const LENGTHS = [16, 32, 48, 1000];
const JS_LENGTHS = [16, 20, 24];

function compiled(script: string): NativeProgram {
  const result = compileNative(script);
  if (!result.ok) throw new Error(`the bench policy does not compile natively: ${JSON.stringify(result)}`);
  return result.program;
}

/**
 * A dbt workload descriptor: the gallery test's compliant one, renamed. Three in ten break a pattern
 * of dbt.cue: a secrets provider in lower case (`(?-i)^(AWS|GCP|Azure)$`), a region as AWS writes it,
 * a project name with capitals; tags in every case the `(?i)` patterns take.
 */
function dbtDescriptor(i: number, template: Record<string, unknown>): unknown {
  const descriptor = structuredClone(template) as { name: string; specific: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  descriptor.name = `Transformation ${i}`;
  descriptor.id = `urn:dmb:cmp:finance:product-${i}:0:dbt-transformation`;
  descriptor.tags = [
    { tagFQN: 'Finance', source: ['Glossary', 'glossary', 'TAG'][i % 3], labelType: ['Manual', 'derived', 'AUTOMATED'][i % 3], state: 'Confirmed' },
    { tagFQN: `Tier.${i % 4}`, source: 'Tag', labelType: 'Propagated', state: 'suggested' },
  ];
  const specific = descriptor.specific as Record<string, unknown> & { secrets: Record<string, unknown> };
  specific.dbtProjectName = i % 10 === 9 ? `Product-${i}` : `product_${['a', 'b', 'c', 'd'][i % 4]}_marts`;
  specific.secrets.secretsProvider = i % 10 === 7 ? 'aws' : ['AWS', 'GCP', 'Azure'][i % 3];
  specific.secrets.region = i % 10 === 8 ? 'eu-west-1' : ['EU_WEST_1', 'US_EAST_2', 'AP_SOUTH_1'][i % 3];
  return descriptor;
}

const failing = (results: readonly EngineResult[]) => {
  if (results.some((result) => result.isError)) throw new Error(`unexpected engine error: ${results.find((result) => result.isError)?.errors.join('; ')}`);
  return results.filter((result) => !result.satisfiesPolicy).length;
};

/** The best of a few rounds of `work`, in seconds: the first ones include the JIT warming up. */
function best(rounds: number, work: () => void): number {
  let seconds = Infinity;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    work();
    seconds = Math.min(seconds, (performance.now() - started) / 1000);
  }
  return seconds;
}

export async function benchRegex(log: (line: string) => void = console.log): Promise<void> {
  const template = YAML.parse(readFileSync(DBT_DESCRIPTOR, 'utf8')) as Record<string, unknown>;
  const descriptors = Array.from({ length: BULK }, (_, i) => dbtDescriptor(i, template));
  const options = { requireConcrete: true, metric: false };

  const policy = compiled(DBT);
  let nativeResults: EngineResult[] = [];
  const nativeSeconds = best(ROUNDS, () => {
    nativeResults = descriptors.map((descriptor) => engineResultOf(evaluateNative(policy, descriptor, options)));
  });
  const nativeFailing = failing(nativeResults);
  if (nativeFailing !== BULK * 0.3) throw new Error(`unexpected native verdicts: ${nativeFailing} failing`);

  const engine = new CueReferenceEvaluator(new CueWorkerPool(WASM));
  let wasmSeconds: number;
  try {
    const resources: EngineResource[] = descriptors.map((descriptor, i) => ({
      id: `dbt-${i}`,
      resourceType: 'component',
      descriptor,
      content: JSON.stringify(descriptor),
    }));
    const v04 = policyEntity('dbt', DBT.replaceAll('!:', ':'));
    await engine.evaluate([v04], resources.slice(0, 4)); // warm: every worker has compiled CUE
    const started = performance.now();
    const [wasm] = await engine.evaluate([v04], resources);
    wasmSeconds = (performance.now() - started) / 1000;
    const wasmFailing = failing(wasm);
    if (wasmFailing !== nativeFailing) throw new Error(`the two paths disagree: ${nativeFailing} failing natively, ${wasmFailing} on WebAssembly`);
  } finally {
    await engine.close();
  }
  const nativePerSecond = BULK / nativeSeconds;
  const wasmPerSecond = BULK / wasmSeconds;
  log(
    `(i) regex-heavy policy (gallery dbt.cue: 9 patterns, (?i) and (?-i), 10 matches a descriptor) x ${BULK} dbt descriptors (30% failing): native ${nativePerSecond.toFixed(0)} evaluations/s (best of ${ROUNDS} rounds), WebAssembly ${wasmPerSecond.toFixed(0)} evaluations/s (dbt.cue without its \`!\`, which v0.4 cannot parse): ${(nativePerSecond / wasmPerSecond).toFixed(0)}x`,
  );

  // (j) `^(a+)+$` on n `a`s and a `!`: no match; a backtracking engine tries 2^n ways.
  const catastrophic = regexpOf('^(a+)+$');
  if (!(catastrophic instanceof Regexp)) throw new Error('^(a+)+$ did not compile');
  const program = compiled('v: =~"^(a+)+$"\n');
  const timings = LENGTHS.map((length) => {
    const text = `${'a'.repeat(length - 1)}!`;
    const repeat = Math.max(200, Math.round(200_000 / length));
    const match = best(5, () => {
      for (let i = 0; i < repeat; i++) if (catastrophic.test(text)) throw new Error('^(a+)+$ matched');
    });
    const evaluation = best(5, () => {
      for (let i = 0; i < repeat; i++) if (evaluateNative(program, { v: text }, options).kind === 'satisfied') throw new Error('the policy passed');
    });
    return { length, match: (match / repeat) * 1e6, evaluation: (evaluation / repeat) * 1e6 };
  });
  // For contrast, JavaScript's own RegExp (backtracking), kept to lengths that end.
  const javascript = JS_LENGTHS.map((length) => {
    const text = `${'a'.repeat(length - 1)}!`;
    return best(3, () => /^(a+)+$/.test(text)) * 1000;
  });
  const shown = (pick: (timing: (typeof timings)[number]) => number) => timings.map((timing) => pick(timing).toFixed(1)).join(' / ');
  const [first, last] = [timings[0], timings[timings.length - 1]];
  log(
    `(j) ^(a+)+$ natively (RE2) on ${LENGTHS.join(' / ')} characters ending in "!" (no match): match ${shown((t) => t.match)} µs, policy evaluation ${shown((t) => t.evaluation)} µs; ` +
      `${((last.match - first.match) / (last.length - first.length)).toFixed(3)} µs per character added (linear). JavaScript's RegExp (backtracking) on ${JS_LENGTHS.join(' / ')}: ${javascript.map((ms) => ms.toFixed(1)).join(' / ')} ms`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchRegex();
