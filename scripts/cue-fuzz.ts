/**
 * `npm run cue:fuzz [-- --policies N] [--seed S] [--minimise N] [--budget SECONDS]`: the longer run
 * of the differential between the native CUE evaluator and CUE v0.4 (tests/support/cue-differential.ts;
 * docs/cue-policies.md, "The differential, continuously"). Prints the pairs run, the disagreements
 * by direction and each minimised disagreement; exits with 1 when one is of a direction the unit
 * test asserts (tests/unit/cue-native-fuzz.test.ts).
 */
import { parseArgs } from 'node:util';

import { Differential, formatReport, isAsserted } from '../tests/support/cue-differential';

const { values } = parseArgs({
  options: {
    policies: { type: 'string', default: '2000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000_000) },
    minimise: { type: 'string', default: '3' },
    budget: { type: 'string', default: '60' },
  },
});

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
  process.exitCode = report.disagreements.some(isAsserted) ? 1 : 0;
} finally {
  await differential.close();
}
