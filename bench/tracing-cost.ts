/**
 * Bench: what X-Ray tracing costs an Evaluate call (docs/operations.md "Traces"). Traces are sent
 * from AWS Lambda only, so serverless offline never shows it: this bench calls the Evaluate handler
 * in-process, as Lambda does, in two processes of its own on one embedded PostgreSQL. One is not
 * traced (as under npm start); the other is a tracing Lambda (AWS_EXECUTION_ENV, a trace header) whose
 * segments go to a UDP socket on 127.0.0.1 standing for the X-Ray daemon. Each process evaluates
 * the ~4 KB descriptor of bench (a) against the same 20 enabled CUE policies, of a resource type of
 * its own, and prints p50 and p95; this prints both and their difference per evaluation.
 * Run alone with `node --import tsx bench/tracing-cost.ts`, or through `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { benchToken, startBenchDatabase } from './bench-world';
import { benchPolicies } from './evaluate-api';
import { type Mode, type ModeRun, MODES } from './tracing-cost-run';

/** Runs `mode` in a process of its own (the tracer is chosen when the service's modules load). */
function inProcessOfItsOwn(mode: Mode, environment: NodeJS.ProcessEnv): Promise<ModeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./tracing-cost-run.ts', import.meta.url)), mode], {
      env: { ...process.env, ...environment, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = output.trim().split('\n').at(-1) ?? '';
      if (code === 0) resolve(JSON.parse(last) as ModeRun);
      else reject(new Error(`the ${mode} run ended with ${code}: ${output.slice(-2000)}`));
    });
  });
}

export async function benchTracing(): Promise<void> {
  const types = MODES.map(
    (mode) => `{ name = "dataproduct-${mode}", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/r" } }`,
  );
  const database = await startBenchDatabase(`computational-governance-platform.evaluation.enable-on-publish = false
computational-governance-platform.cue-config.evaluator = "native"
computational-governance-platform.resource-types = [ ${types.join(', ')} ]`);
  try {
    const environment = {
      DATABASE_URL: database.postgres.url,
      CGP_CONFIG_FILE: database.configFile,
      BENCH_ADMIN_TOKEN: await benchToken({ roles: ['admin'] }, 'bench'),
      BENCH_CI_TOKEN: await benchToken({}, 'bench-ci'),
    };
    const untraced = await inProcessOfItsOwn('untraced', environment);
    const traced = await inProcessOfItsOwn('traced', environment);
    const policies = benchPolicies().length;
    const perEvaluation = (on: number, off: number) => `${(((on - off) / policies) * 1000).toFixed(0)} µs`;
    console.log(
      `(tracing) Evaluate handler in-process, native CUE, ${policies} policies, ${untraced.samples} warm calls: ` +
        `untraced p50 ${untraced.p50.toFixed(1)} ms, p95 ${untraced.p95.toFixed(1)} ms; ` +
        `traced p50 ${traced.p50.toFixed(1)} ms, p95 ${traced.p95.toFixed(1)} ms (${traced.segments} segments sent); ` +
        `tracing costs ${perEvaluation(traced.p50, untraced.p50)} per evaluation at p50, ${perEvaluation(traced.p95, untraced.p95)} at p95`,
    );
  } finally {
    await database.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchTracing();
}
