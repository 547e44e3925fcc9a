/**
 * Bench (a): POST /evaluate of one ~4 KB descriptor against 20 enabled CUE policies, through the
 * HTTP API of serverless offline on an embedded PostgreSQL, warm, as a CI gate calls it (a technical
 * token without roles: its role bindings are read per call); prints p50 and p95, once with
 * cue-config.evaluator = wasm and once with native (each in a fresh world), and their ratio.
 * Run alone with `node --import tsx bench/evaluate-api.ts` (BENCH_EVALUATORS=native for one
 * evaluator only), or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import { benchEvaluators, describeMemory, type Evaluator, evaluatorSetting, type Memory, sideBySide, startBenchWorld } from './bench-world';

const POLICIES = 20;
const WARM_UP = 5;
const SAMPLES = 40;

/** A data product descriptor of about 4 KB. */
export function benchDescriptor(id: string): Record<string, unknown> {
  return {
    id,
    name: `Sales orders ${id}`,
    domain: 'finance',
    version: '1.4.2',
    owner: 'alice',
    environment: 'production',
    description: 'Orders placed in every sales channel, deduplicated and enriched with customer segments. '.repeat(4),
    dataContract: { termsAndConditions: 'internal use only', schemaVersion: 3 },
    tags: ['sales', 'orders', 'gold'],
    components: Array.from({ length: 8 }, (_, i) => ({
      id: `${id}:component-${i}`,
      name: `component ${i}`,
      kind: i % 2 === 0 ? 'outputport' : 'workload',
      owner: 'alice',
      description: 'A component of the data product with its own schema and storage. ',
      schema: Array.from({ length: 5 }, (_, c) => ({ name: `column_${c}`, dataType: c % 2 ? 'STRING' : 'INTEGER', description: 'a column' })),
    })),
  };
}

/** Twenty policies of the kind governance teams write: required fields, formats, bounds, lists. */
export function benchPolicies(): string[] {
  const scripts = [
    'owner: string & =~"^[a-z]+$"',
    'domain: "finance" | "sales" | "marketing"',
    'version: =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$"',
    'name: string & !=""',
    'description: string',
    'environment: "development" | "qa" | "production"',
    'tags: [...string]',
    'dataContract: { termsAndConditions: string, ... }',
    'dataContract: { schemaVersion: int & >=1, ... }',
    'components: [...{ id: string, ... }]',
    'components: [...{ kind: "outputport" | "workload", ... }]',
    'components: [...{ owner: string, ... }]',
    'components: [...{ schema: [...{ name: =~"^[a-z_0-9]+$", ... }], ... }]',
    'components: [...{ schema: [...{ dataType: "STRING" | "INTEGER" | "DATE", ... }], ... }]',
    'id: string & !=""',
    'components: [...{ description: string, ... }]',
    'components: [...{ name: string, ... }]',
    'tags: [...(string & !="")]',
    'owner: !="root"',
    'domain: string',
  ];
  return scripts.slice(0, POLICIES);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** What the bench reads of a saved policy. */
interface SavedPolicy {
  id: string;
  evaluator: string;
}

interface EvaluateRun {
  readonly p50: number;
  readonly p95: number;
  readonly memory: Memory;
}

/** One fresh world under `evaluator`: the policies are saved there, so that they store the evaluator it chooses. Metrics on, as deployed, unless `metrics` is false. */
async function evaluateWith(evaluator: Evaluator, metrics = true): Promise<EvaluateRun> {
  // Publishing here only enables the policies: the publish-time evaluation has a bench of its own.
  const world = await startBenchWorld(`computational-governance-platform.evaluation.enable-on-publish = false
computational-governance-platform.observability.metrics.enabled = ${metrics}
computational-governance-platform.resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/r" } } ]
${evaluatorSetting(evaluator)}`);
  const { call, ciAuthorization } = world;
  try {
    const stored: Record<string, number> = {};
    for (const [i, cueScript] of benchPolicies().entries()) {
      const policy = await call<SavedPolicy>('POST', '/policies', { name: `bench policy ${i}`, resourceType: 'dataproduct', engine: 'cue', cueScript });
      stored[policy.evaluator] = (stored[policy.evaluator] ?? 0) + 1;
      await call('POST', `/policies/${policy.id}/publish`);
    }
    const durations: number[] = [];
    for (let i = 0; i < WARM_UP + SAMPLES; i++) {
      const descriptor = JSON.stringify(benchDescriptor(`urn:dp:bench-${i}`));
      const started = performance.now();
      const report = await call<{ status: string; evaluationResults: unknown[] }>(
        'POST',
        '/evaluate',
        { environment: 'development', resourceType: 'dataproduct', descriptor },
        { prefer: 'wait=25', authorization: ciAuthorization },
      );
      const elapsed = performance.now() - started;
      if (report.status !== 'completed' || report.evaluationResults.length !== POLICIES)
        throw new Error(`unexpected report: ${JSON.stringify(report).slice(0, 500)}`);
      if (i >= WARM_UP) durations.push(elapsed);
    }
    durations.sort((a, b) => a - b);
    const run = { p50: percentile(durations, 50), p95: percentile(durations, 95), memory: await world.memory() };
    console.log(
      `(a) Evaluate API, cue-config.evaluator = ${evaluator}${metrics ? '' : ', metrics off'} (policies stored as ${Object.entries(stored)
        .map(([name, n]) => `${name} ${n}`)
        .join(
          ', ',
        )}), ${Buffer.byteLength(JSON.stringify(benchDescriptor('urn:dp:bench-0')))} B descriptor x ${POLICIES} enabled CUE policies, ${SAMPLES} warm calls: ` +
        `p50 ${run.p50.toFixed(0)} ms, p95 ${run.p95.toFixed(0)} ms; memory after: ${describeMemory(run.memory)}`,
    );
    return run;
  } finally {
    await world.stop();
  }
}

export async function benchEvaluateApi(): Promise<void> {
  const runs = {} as Partial<Record<Evaluator, EvaluateRun>>;
  for (const evaluator of benchEvaluators().reverse()) runs[evaluator] = await evaluateWith(evaluator);
  const { native, wasm } = runs;
  if (!native || !wasm) return;
  console.log(
    `    Evaluate p50: ${sideBySide(native.p50, wasm.p50, 'ms', wasm.p50 / native.p50)} (target native <= 25 ms); p95: ${sideBySide(native.p95, wasm.p95, 'ms', wasm.p95 / native.p95)}`,
  );
  // What the metric lines cost (docs/operations.md): the same calls with observability.metrics.enabled = false.
  const off = await evaluateWith('native', false);
  const perEvaluation = (on: number, without: number) => `${(((on - without) / POLICIES) * 1000).toFixed(0)} µs`;
  console.log(
    `    Metrics cost, native: p50 ${native.p50.toFixed(0)} ms on vs ${off.p50.toFixed(0)} ms off (${perEvaluation(native.p50, off.p50)} per evaluation), ` +
      `p95 ${native.p95.toFixed(0)} vs ${off.p95.toFixed(0)} ms (${perEvaluation(native.p95, off.p95)}); a difference inside the run-to-run spread is noise`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchEvaluateApi();
}
