/**
 * `npm run cue:fuzz [-- --policies N] [--seed S] [--minimise N] [--budget SECONDS]`: the longer run
 * of the differential between the native CUE evaluator and CUE v0.4 (tests/support/cue-differential.ts;
 * docs/cue-policies.md, "The differential, continuously"). Prints the pairs run, the disagreements
 * by direction and each minimised disagreement; exits with 1 when one is of a direction the unit
 * test asserts (tests/unit/cue-native-fuzz.test.ts).
 *
 * `npm run cue:fuzz -- --builtins [--inputs N] [--seed S] [--write-docs]`: the longer run of the
 * differential per builtin (tests/support/builtin-differential.ts), N calls of each (default 300);
 * exits with 1 on a call the native evaluator passes and CUE fails, or an internal exception.
 * `--write-docs` writes the inputs each builtin ran into docs/cue-policies.md's table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { PACKAGES, universe } from '@cgp/cue/builtins';

import { createReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';

import {
  BUILTIN_CI_INPUTS,
  BUILTIN_CI_SEED,
  type BuiltinReport,
  callsOf,
  formatReport as formatBuiltins,
  judgeBuiltin,
  nativeBuiltins,
} from '../tests/support/builtin-differential';
import { NOT_IN_V04 } from '../tests/support/builtin-domains';
import { Differential, formatReport, isAsserted } from '../tests/support/cue-differential';

const { values } = parseArgs({
  options: {
    policies: { type: 'string', default: '2000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000_000) },
    minimise: { type: 'string', default: '3' },
    budget: { type: 'string', default: '60' },
    builtins: { type: 'boolean', default: false },
    inputs: { type: 'string', default: '300' },
    'write-docs': { type: 'boolean', default: false },
  },
});

async function fuzzPolicies(): Promise<void> {
  const differential = new Differential({
    seed: Number(values.seed),
    policies: Number(values.policies),
    plans: 5,
    concurrency: 3,
    cueWorkers: 2,
    minimise: { perKind: Number(values.minimise), assertedOnly: false, budgetMs: Number(values.budget) * 1000 },
    log: (line) => console.log(line),
  });
  try {
    const report = await differential.fuzz();
    console.log(formatReport(report));
    process.exitCode = report.disagreements.some(isAsserted) || report.faults.length > 0 ? 1 : 0;
  } finally {
    await differential.close();
  }
}

async function fuzzBuiltins(inputs: number, seed: number, writeDocs: boolean): Promise<void> {
  console.log(`builtins: ${inputs} calls each, seed ${seed}`);
  const wasm = createReferenceEvaluator({ timeout: 300_000, workers: 2, recycleAfterRuns: 200, maxOutputBytes: 64 * 1024 * 1024 });
  const started = performance.now();
  try {
    const names = nativeBuiltins(universe, PACKAGES.values());
    const reports: BuiltinReport[] = [];
    for (const name of names.filter((builtin) => !(builtin in NOT_IN_V04))) {
      const report = await judgeBuiltin(wasm, name, callsOf(name, inputs, seed));
      console.log(formatBuiltins([report], 5));
      reports.push(report);
    }
    const wrong = reports.reduce((sum, report) => sum + report.counts['native-only'] + report.counts.fault, 0);
    const calls = reports.reduce((sum, report) => sum + report.inputs, 0);
    console.log(
      `${calls} calls of ${reports.length} builtins in ${((performance.now() - started) / 1000).toFixed(0)} s: ${wrong} passed natively where CUE fails, or faulted`,
    );
    if (writeDocs) writeTable(names, reports, seed);
    process.exitCode = wrong > 0 ? 1 : 0;
  } finally {
    await wasm.close();
  }
}

const START = '<!-- builtin-differential:start -->';
const END = '<!-- builtin-differential:end -->';

/** docs/cue-policies.md's table of builtins: inputs in `npm test`, in this run, and how this run ended. */
function writeTable(names: readonly string[], reports: readonly BuiltinReport[], seed: number): void {
  const byName = new Map(reports.map((report) => [report.builtin, report]));
  const rows = names.map((name) => {
    const report = byName.get(name);
    if (!report) return `| \`${name}\` | – | – | no differential: ${NOT_IN_V04[name]} |`;
    const ci = callsOf(name, BUILTIN_CI_INPUTS, BUILTIN_CI_SEED).length;
    const { agreed, deferred, documented, precision, 'cue-fault': cueFault, 'cue-only': cueOnly } = report.counts;
    const parts = [`${agreed} agreed`];
    if (deferred) parts.push(`${deferred} left to CUE`);
    if (documented) parts.push(`${documented} documented differences`);
    if (precision) parts.push(`${precision} past a double's precision`);
    if (cueOnly) parts.push(`${cueOnly} stricter natively`);
    if (cueFault) parts.push(`${cueFault} CUE v0.4 crashed`);
    return `| \`${name}\` | ${ci} | ${report.inputs} | ${parts.join(', ')} |`;
  });
  const table = [
    START,
    `Last long run: seed ${seed}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| Builtin | Inputs in `npm test` | Inputs in the long run | The long run |',
    '|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
  const path = new URL('../docs/cue-policies.md', import.meta.url);
  const docs = readFileSync(path, 'utf8');
  const start = docs.indexOf(START);
  const end = docs.indexOf(END);
  if (start < 0 || end < 0) throw new Error(`docs/cue-policies.md has no ${START} ... ${END} section`);
  writeFileSync(path, docs.slice(0, start) + table + docs.slice(end + END.length));
}

if (values.builtins) await fuzzBuiltins(Number(values.inputs), Number(values.seed), values['write-docs']);
else await fuzzPolicies();
