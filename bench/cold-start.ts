/**
 * Bench: the deploy gate's cold start as Lambda has it. The packaged gate (`serverless package`, or
 * the package in BENCH_PACKAGE_DIR) is unzipped into a task root and the cueRuntime layer into an
 * /opt of its own; then, PROCESSES times, a fresh plain `node` (bench/cold-start-load.mjs) imports the
 * handler and makes its first Evaluate call (a CI gate's token, `Prefer: wait`) on an embedded
 * PostgreSQL whose schema the start-up tasks prepared, against the 20 native CUE policies of bench
 * (a), so that the call really evaluates and compares with (a)'s warm p50. Prints p50 of the import,
 * of the first call and of spawn-to-answer, and the sizes Lambda's limits are about.
 * Run alone with `node --import tsx bench/cold-start.ts` (BENCH_PACKAGE_DIR=<dir> skips packaging), or
 * through `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import AdmZip from 'adm-zip';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { benchApiEvent } from './api-event';
import { benchToken, startBenchDatabase } from './bench-world';
import { benchDescriptor, benchPolicies } from './evaluate-api';

const PROCESSES = 5;
const RESOURCE_TYPE = 'dataproduct';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOADER = fileURLToPath(new URL('./cold-start-load.mjs', import.meta.url));
const MARK = 'cold-start-load ';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const p50 = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/**
 * Runs node with `args`; resolves with its stdout and the milliseconds from spawn to its first
 * MARK line (what a cold start's caller waits for), rejects with its output when it fails.
 */
function runNode(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ stdout: string; markedAfter?: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let markedAfter: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (markedAfter === undefined && new RegExp(`(^|\\n)${MARK}[^\\n]*\\n`).test(stdout)) markedAfter = performance.now() - started;
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve({ stdout, markedAfter });
      else reject(new Error(`node ${args.join(' ').slice(0, 200)} ended with ${code}:\n${stderr.slice(-4000) || stdout.slice(-4000)}`));
    });
  });
}

/** BENCH_PACKAGE_DIR, or a fresh `serverless package` in a temporary folder (`temporary`: removed afterwards). */
async function packageDirectory(): Promise<{ dir: string; temporary: boolean }> {
  const given = process.env.BENCH_PACKAGE_DIR;
  if (given) {
    if (!existsSync(path.join(given, 'gate.zip'))) throw new Error(`BENCH_PACKAGE_DIR=${given} holds no gate.zip`);
    return { dir: given, temporary: false };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'cgp-cold-start-package-'));
  // A build folder of its own, so that a packaging or a serverless offline of someone else in this
  // checkout keeps its own; under .esbuild-offline/, which the watcher, git and eslint ignore.
  const workFolder = path.join('.esbuild-offline', `cold-start-${process.pid}`);
  try {
    await runNode([path.join(ROOT, 'scripts', 'package.mjs'), '--package', dir], { ...process.env, CGP_ESBUILD_WORK_FOLDER: workFolder }, ROOT);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(path.join(ROOT, workFolder), { recursive: true, force: true });
    await rmdir(path.join(ROOT, '.esbuild-offline')).catch(() => undefined); // still in use by another build
  }
  return { dir, temporary: true };
}

/** Unzips `zip` into `target`; its size, zipped and unzipped (the entries' own sizes, as Lambda's limit counts them). */
function unzip(zip: string, target: string): { zipped: number; unzipped: number } {
  const archive = new AdmZip(zip);
  archive.extractAllTo(target, true);
  return { zipped: statSync(zip).size, unzipped: archive.getEntries().reduce((sum, entry) => sum + entry.header.size, 0) };
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The setup, in a process of its own (`cold-start.ts setup`, CGP_CONFIG_FILE and DATABASE_URL of the
 * bench's database): the policies are saved and published through their handlers, as the API does, so
 * that each stores the evaluator its check chose. Not in the bench's own process, whose settings
 * (read once per process) belong to the other benches of `npm run bench`.
 */
async function savePolicies(): Promise<void> {
  const policies = await import('../functions/governance/policies');
  const admin = `Bearer ${process.env.BENCH_ADMIN_TOKEN}`;
  const context = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 29_000 } as unknown as Context;
  const call = async (handler: Handler, event: APIGatewayProxyEventV2) => {
    const response = await handler(event, context);
    if ((response.statusCode ?? 500) >= 300) throw new Error(`${event.routeKey} answered ${response.statusCode}: ${response.body}`);
    return JSON.parse(response.body ?? '{}') as Record<string, unknown>;
  };
  for (const [i, cueScript] of benchPolicies().entries()) {
    const body = { name: `cold start ${i}`, resourceType: RESOURCE_TYPE, engine: 'cue', cueScript };
    const created = await call(policies.createPolicy as Handler, benchApiEvent('POST', '/v1/computational-governance/policies', admin, body));
    if (created.evaluator !== 'native') throw new Error(`policy ${i} is stored for the ${String(created.evaluator)} evaluator, not native`);
    const id = String(created.id);
    await call(policies.publishPolicy as Handler, benchApiEvent('POST', `/v1/computational-governance/policies/${id}/publish`, admin, undefined, { id }));
  }
}

interface ColdStart {
  readonly importMs: number;
  readonly callMs: number;
  readonly spawnToAnswerMs: number;
}

export async function benchColdStart(): Promise<void> {
  const { dir, temporary } = await packageDirectory();
  const unpacked = await mkdtemp(path.join(tmpdir(), 'cgp-cold-start-'));
  const removeUnpacked = () => rmSync(unpacked, { recursive: true, force: true });
  // Also when the bench ends early (Ctrl-C), as bench-world does for its database folder.
  process.once('exit', removeUnpacked);
  let database: Awaited<ReturnType<typeof startBenchDatabase>> | undefined;
  try {
    const taskRoot = path.join(unpacked, 'task');
    const gate = unzip(path.join(dir, 'gate.zip'), taskRoot);
    const layer = unzip(path.join(dir, 'cueRuntime.zip'), path.join(unpacked, 'opt'));
    database = await startBenchDatabase(`computational-governance-platform.evaluation.enable-on-publish = false
computational-governance-platform.cue-config.evaluator = "native"
computational-governance-platform.resource-types = [ { name = "${RESOURCE_TYPE}", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/r" } } ]`);
    const { postgres, configFile, settings } = database;
    await runNode(
      ['--import', 'tsx', fileURLToPath(import.meta.url), 'setup'],
      {
        ...process.env,
        DATABASE_URL: postgres.url,
        CGP_CONFIG_FILE: configFile,
        LOG_LEVEL: 'warn',
        BENCH_ADMIN_TOKEN: await benchToken({ roles: ['admin'] }, 'bench'),
      },
      ROOT,
    );
    // What the function's configuration gives it in AWS (serverless.yml's environment), nothing of this
    // process's: the packaged application.conf is read (no CGP_CONFIG_FILE), the resource type and the
    // policies come from the database.
    const environment = {
      LAMBDA_TASK_ROOT: taskRoot,
      NODE_PATH: path.join(unpacked, 'opt', 'nodejs', 'node_modules'),
      DATABASE_URL: postgres.url,
      DATABASE_SCHEMA: settings.database.schema,
      AUTH_BACKEND_SECRETS: settings.platformServices.auth.backendSecrets.join(','),
      AWS_REGION: 'eu-west-1',
      LOG_LEVEL: 'silent',
    };
    const authorization = `Bearer ${await benchToken({}, 'bench-ci')}`;
    const policies = benchPolicies().length;
    const runs: ColdStart[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const body = { environment: 'development', resourceType: RESOURCE_TYPE, descriptor: JSON.stringify(benchDescriptor(`urn:dp:cold-start-${i}`)) };
      const event = benchApiEvent('POST', '/v1/computational-governance/evaluate', authorization, body);
      const { stdout, markedAfter } = await runNode(
        [LOADER, path.join(taskRoot, 'functions', 'units', 'gate.mjs'), JSON.stringify(event)],
        environment,
        taskRoot,
      );
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(MARK)) ?? '';
      const answer = JSON.parse(line.slice(MARK.length)) as { importMs: number; callMs: number; statusCode: number; body: string };
      const report = JSON.parse(answer.body) as { status?: string; evaluationResults?: unknown[] };
      if (answer.statusCode !== 200 || report.status !== 'completed' || report.evaluationResults?.length !== policies)
        throw new Error(`the gate's first call answered ${answer.statusCode}: ${answer.body.slice(0, 500)}`);
      runs.push({ importMs: answer.importMs, callMs: answer.callMs, spawnToAnswerMs: markedAfter ?? Number.NaN });
    }
    const of = (key: keyof ColdStart) => p50(runs.map((run) => run[key])).toFixed(0);
    console.log(
      `cold start (gate, packaged; ${PROCESSES} fresh processes, first Evaluate of a ~4 KB descriptor x ${policies} native CUE policies): ` +
        `import p50 ${of('importMs')} ms, first call p50 ${of('callMs')} ms, spawn-to-answer p50 ${of('spawnToAnswerMs')} ms; ` +
        `zip ${mb(gate.zipped)} MB (${mb(gate.unzipped)} MB unzipped), CUE layer ${mb(layer.unzipped)} MB unzipped`,
    );
  } finally {
    await database?.stop();
    process.off('exit', removeUnpacked);
    removeUnpacked();
    if (temporary) await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === 'setup') {
    await savePolicies();
    // The pool and the CUE engine would keep the process alive: the setup is done.
    process.exit(0);
  }
  await benchColdStart();
}
