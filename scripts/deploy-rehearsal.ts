/**
 * `npm run deploy:rehearse [-- --package <folder> | --stage <stage>]`: deploys a package (the one
 * given, also by REHEARSAL_PACKAGE_DIR, else one made for the stage, `rehearsal` by default) to moto,
 * an AWS emulator (`moto_server`, Python), with the framework's own `serverless deploy`; runs the
 * packaged startup function as Lambda would for the DatabaseSchema custom resource, on a real
 * PostgreSQL (DATABASE_URL, else an embedded one), and checks the schema it migrated; checks what
 * moto made against the template (scripts/deploy-rehearsal-checks.ts); then `serverless remove`, and
 * checks that the stack is gone. Exits 1 when a check fails.
 *
 * Moto runs no function: the startup function is the only one the rehearsal runs, from the package.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { devNull, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { GetFunctionConfigurationCommand } from '@aws-sdk/client-lambda';
import AdmZip from 'adm-zip';
import postgres from 'postgres';

import { SECRET_VARIABLES } from '#lib/settings/secret-parameters';

import { startTestDatabase } from '../tests/support/database-setup';
import {
  type Check,
  checkDeployed,
  checkRemoved,
  Checks,
  type Deployed,
  describeStack,
  MOTO_CREDENTIALS,
  type MotoClients,
  motoClients,
  readTemplate,
  resourcesOf,
  stackResources,
  type Template,
} from './deploy-rehearsal-checks';
import { freePort } from './free-port';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SERVERLESS_BIN = path.join(ROOT, 'node_modules', 'serverless', 'bin', 'serverless.js');
const SCHEMA_RESOURCE = 'DatabaseSchema';

type Log = (line: string) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What `serverless package` wrote of the service into the package: its stage and region. */
export function readPackageState(packageDir: string): { stackName: string; stage: string; region: string } {
  const { service } = JSON.parse(readFileSync(path.join(packageDir, 'serverless-state.json'), 'utf8')) as {
    service: { service: string; provider: { stage: string; region: string; stackName?: string } };
  };
  const { stage, region, stackName } = service.provider;
  return { stackName: stackName ?? `${service.service}-${stage}`, stage, region };
}

/** A child's output, kept to be shown when it fails. */
function collectOutput(child: ChildProcess): string[] {
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return lines;
}

/** Runs a child to its end: its output when it exits 0, else an error with its last lines. */
function runToEnd(child: ChildProcess, name: string, timeoutMs: number): Promise<string[]> {
  const lines = collectOutput(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(lines);
      else
        reject(
          new Error(`${name} failed (${code ?? signal}${signal === 'SIGKILL' ? `, stopped after ${timeoutMs} ms` : ''}):\n${lines.slice(-60).join('\n')}`),
        );
    });
  });
}

interface Moto {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts `moto_server` on a free port and waits until it answers. */
export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = collectOutput(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // Also when this process ends without stopping it (an error thrown past the rehearsal, Ctrl-C).
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if ((await Promise.race([exited.then(() => true), sleep(5_000)])) !== true) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const started = new Promise<never>((_resolve, reject) => child.once('error', reject));
  try {
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
      if (child.exitCode !== null) throw new Error(`moto_server exited (${child.exitCode}):\n${lines.join('\n')}`);
      const answered = await Promise.race([
        fetch(`${endpoint}/moto-api/`).then(
          (response) => response.ok,
          () => false,
        ),
        started,
      ]);
      if (answered) return { endpoint, stop };
    }
    throw new Error(`moto_server did not answer on ${endpoint} within 30 s:\n${lines.join('\n')}`);
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The environment of `serverless` against moto: none of this shell's AWS settings (a profile, a
 * service's own endpoint such as AWS_ENDPOINT_URL_S3, its credentials) may take a request elsewhere;
 * moto's endpoint for every service, and credentials AWS would refuse.
 */
function motoEnvironment(endpoint: string, region: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  return {
    ...env,
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
    AWS_REGION: region,
    AWS_CONFIG_FILE: devNull,
    AWS_SHARED_CREDENTIALS_FILE: devNull,
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
  };
}

function runServerless(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string[]> {
  const child = spawn(process.execPath, [SERVERLESS_BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return runToEnd(child, `serverless ${args.join(' ')}`, timeoutMs);
}

/**
 * Waits until moto has made the DatabaseSchema resource and sent its request to the startup
 * function (which fails: moto runs functions in Docker). Moto 5.2.1 applies a stack update at once
 * and does not wait for the answer (UPDATE_COMPLETE, where CloudFormation would be *_IN_PROGRESS);
 * during the update it still shows the CREATE_COMPLETE of the stack's creation, and an answer then
 * would race it.
 */
async function pendingSchemaRequest(clients: MotoClients, stackName: string, deploying: { done: boolean }): Promise<{ stackId: string; status: string }> {
  const pending = new Set(['UPDATE_COMPLETE', 'UPDATE_IN_PROGRESS', 'CREATE_IN_PROGRESS']);
  for (;;) {
    const finished = deploying.done;
    // Moto answers 500 now and then while it updates the stack (its resources change as it lists them).
    const stack = await describeStack(clients, stackName).catch(() => undefined);
    const resources = stack && pending.has(stack.status) ? await stackResources(clients, stackName).catch(() => undefined) : undefined;
    if (stack && resources?.has(SCHEMA_RESOURCE)) return stack;
    if (finished) throw new Error(`moto's stack ${stackName} has no pending ${SCHEMA_RESOURCE} resource after the deploy (${stack?.status ?? 'no stack'})`);
    await sleep(300);
  }
}

/**
 * Where the startup function answers. Moto reads the region of a request from its URL (a host under
 * amazonaws.com), its User-Agent or its signature, not from the `cloudformation_<region>` of this
 * path, which it makes itself; the answer, an unsigned PUT, has none of them: the query names it.
 */
const responseUrl = (endpoint: string, region: string, stackId: string) =>
  `${endpoint}/cloudformation_${region}/cfnresponse?stack=${encodeURIComponent(stackId)}&region-of=cloudformation.${region}.amazonaws.com`;

/** Imports a handler and calls it with an event and a context, as the Lambda runtime does, then exits. */
const INVOKE = `
const [file, exported, json, timeoutMs] = process.argv.slice(1);
const event = JSON.parse(json);
const deadline = Date.now() + Number(timeoutMs);
const context = { awsRequestId: event.RequestId, functionName: process.env.AWS_LAMBDA_FUNCTION_NAME, getRemainingTimeInMillis: () => deadline - Date.now() };
await (await import(file))[exported](event, context);
process.exit(0);
`;

/**
 * Deployed, the functions require TLS to the database unless its URL's sslmode says otherwise; the
 * rehearsal's PostgreSQL (embedded, or the tests') has none.
 */
function withoutTls(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (!url.searchParams.has('sslmode')) url.searchParams.set('sslmode', 'disable');
  return url.href;
}

/**
 * Plays Lambda for the DatabaseSchema custom resource: the packaged startup function, unzipped into a
 * task root, run in a fresh `node` with the environment moto gave the function plus what a
 * deployment gives by SSM (the database, a schema of its own, the assistant's key), on
 * CloudFormation's Create request. It answers moto itself.
 */
async function runStartupFunction(options: {
  clients: MotoClients;
  template: Template;
  packageDir: string;
  taskRoot: string;
  stackId: string;
  databaseUrl: string;
  schema: string;
  log: Log;
}): Promise<void> {
  const { clients, template, taskRoot } = options;
  const properties = template.Resources[SCHEMA_RESOURCE].Properties as { ServiceToken: { 'Fn::GetAtt': [string, string] } };
  const startupKey = properties.ServiceToken['Fn::GetAtt'][0];
  const startup = resourcesOf(template, 'AWS::Lambda::Function').find(([key]) => key === startupKey)?.[1];
  if (!startup) throw new Error(`${SCHEMA_RESOURCE}'s ServiceToken names ${startupKey}, not a function of the template`);
  new AdmZip(path.join(options.packageDir, path.basename(startup.Code.S3Key))).extractAllTo(taskRoot);
  const configuration = await clients.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: startup.FunctionName }));
  const handler = startup.Handler.slice(0, startup.Handler.lastIndexOf('.'));
  const event = {
    RequestType: 'Create',
    ServiceToken: configuration.FunctionArn,
    ResponseURL: responseUrl(clients.endpoint, clients.region, options.stackId),
    StackId: options.stackId,
    RequestId: randomUUID(),
    LogicalResourceId: SCHEMA_RESOURCE,
    ResourceType: template.Resources[SCHEMA_RESOURCE].Type,
    ResourceProperties: { ...properties, ServiceToken: configuration.FunctionArn },
  };
  const env = {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    ...configuration.Environment?.Variables,
    LAMBDA_TASK_ROOT: taskRoot,
    AWS_LAMBDA_FUNCTION_NAME: startup.FunctionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(startup.MemorySize),
    AWS_REGION: clients.region,
    DATABASE_URL: withoutTls(options.databaseUrl),
    DATABASE_SCHEMA: options.schema,
    ASSISTANT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  const timeoutMs = startup.Timeout * 1000;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      INVOKE,
      path.join(taskRoot, `${handler}.mjs`),
      startup.Handler.slice(handler.length + 1),
      JSON.stringify(event),
      String(timeoutMs),
    ],
    { cwd: taskRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines = await runToEnd(child, `the startup function ${startup.FunctionName}`, timeoutMs);
  for (const line of lines) options.log(`  [startup] ${line}`);
}

/** The schema the startup function migrated: its tables, and the migrations applied, of those the package ships. */
async function inspectSchema(databaseUrl: string, schema: string, taskRoot: string) {
  const journal = JSON.parse(readFileSync(path.join(taskRoot, 'drizzle', 'migrations', 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    const [{ tables }] = await sql<{ tables: number }[]>`select count(*)::int as tables from information_schema.tables where table_schema = ${schema}`;
    const [{ migrations }] = tables
      ? await sql<{ migrations: number }[]>`select count(*)::int as migrations from ${sql(schema)}.__drizzle_migrations`
      : [{ migrations: 0 }];
    return { name: schema, tables, migrations, shipped: journal.entries.length };
  } finally {
    await sql.end();
  }
}

async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    await sql`drop schema if exists ${sql(schema)} cascade`;
  } finally {
    await sql.end();
  }
}

export interface Rehearsal {
  readonly stackName: string;
  readonly region: string;
  /** Moto's stack status when the DatabaseSchema request was pending, and once the startup function answered it. */
  readonly status: { readonly pending: string; readonly answered?: string };
  readonly deployed?: Deployed;
  /** The schema the startup function made, counted before it was dropped. */
  readonly schema?: { name: string; tables: number; migrations: number; shipped: number };
  readonly removed?: { stackGone: boolean; left: string[] };
  readonly checks: Check[];
  readonly failures: string[];
  /** How long each step took, in milliseconds. */
  readonly durations: Record<string, number>;
}

/**
 * Deploys `packageDir` (built for `stage`) to a moto of its own, plays Lambda for the DatabaseSchema
 * custom resource on `databaseUrl`, checks what moto made, removes the stack, and returns what it
 * found. A failed check is in `failures`; a step that cannot go on (moto, the deploy) throws. Moto, the
 * temporary folders and the schema are gone when it returns or throws.
 */
export async function rehearseDeploy(options: { packageDir: string; stage: string; databaseUrl: string; log: Log }): Promise<Rehearsal> {
  const { packageDir, stage, databaseUrl, log } = options;
  const { stackName, region, stage: packagedStage } = readPackageState(packageDir);
  if (stage !== packagedStage) throw new Error(`${packageDir} was packaged for the stage ${packagedStage}, not ${stage}`);
  const template = readTemplate(packageDir);
  const checks = new Checks(log);
  const durations: Record<string, number> = {};
  const timed = async <T>(step: string, run: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await run();
    } finally {
      durations[step] = Date.now() - started;
      log(`${step}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  };
  const taskRoot = await mkdtemp(path.join(tmpdir(), 'cgp-rehearsal-startup-'));
  const schema = `rehearsal_${randomBytes(4).toString('hex')}`;
  const moto = await timed('moto start', startMoto);
  try {
    log(`moto listens on ${moto.endpoint}; deploying ${packageDir} as the stack ${stackName} (${region})`);
    const clients = motoClients(moto.endpoint, region);
    const env = motoEnvironment(moto.endpoint, region);
    const deploying = { done: false };
    const deployed = timed('serverless deploy', () => runServerless(['deploy', '--package', packageDir, '--stage', stage], env, 300_000)).finally(() => {
      deploying.done = true;
    });
    const answered = (async () => {
      const pending = await pendingSchemaRequest(clients, stackName, deploying);
      log(
        `moto runs no function: the startup function, from ${packageDir}, is the only one this rehearsal runs, as Lambda for ${SCHEMA_RESOURCE} (schema ${schema})`,
      );
      await timed('the startup function', () =>
        runStartupFunction({ clients, template, packageDir, taskRoot, stackId: pending.stackId, databaseUrl, schema, log }),
      );
      return pending.status;
    })();
    // Both settled before going on: the startup function must not outlive moto or its schema.
    const [deploy, answer] = await Promise.allSettled([deployed, answered]);
    if (deploy.status === 'rejected') throw deploy.reason;
    for (const line of deploy.value.filter((output) => output.includes('✔'))) log(line);
    if (answer.status === 'rejected') throw answer.reason;
    const status = { pending: answer.value, answered: (await describeStack(clients, stackName))?.status };
    // Moto marks a stack whose custom resources have all answered SUCCESS as CREATE_COMPLETE, also after an update.
    checks.equal(`moto took the startup function's SUCCESS (the stack was ${status.pending} while it waited)`, status.answered, 'CREATE_COMPLETE');
    let migrated: Rehearsal['schema'];
    await checks.attempt(`the schema ${schema} of the startup function`, async () => {
      migrated = await inspectSchema(databaseUrl, schema, taskRoot);
      checks.expect(
        `the startup function migrated the schema ${schema}: ${migrated.tables} tables`,
        migrated.tables > 10 ? undefined : 'expected more than 10',
      );
      checks.equal(`the schema ${schema} records the package's ${migrated.shipped} migrations as applied`, migrated.migrations, migrated.shipped);
    });
    const found = await timed('checks of what moto made', () => checkDeployed(checks, clients, { template, stackName, packageDir }));
    await timed('serverless remove', () => runServerless(['remove', '--stage', stage], env, 120_000));
    const removed = await checkRemoved(checks, clients, template, stackName);
    return { stackName, region, status, deployed: found, schema: migrated, removed, checks: checks.made, failures: checks.failures, durations };
  } finally {
    await moto.stop();
    await dropSchema(databaseUrl, schema).catch((error: Error) => log(`could not drop the schema ${schema}: ${error.message}`));
    await rm(taskRoot, { recursive: true, force: true });
  }
}

/** `serverless package` of this checkout into `packageDir`, without any secret of this shell (as tests/support/e2e-setup.ts packages). */
function packageService(packageDir: string, stage: string): void {
  const env: NodeJS.ProcessEnv = { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
  for (const variable of SECRET_VARIABLES) {
    delete env[variable];
    delete env[`${variable}_SSM`];
  }
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'package.mjs'), '--package', packageDir, '--stage', stage], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`serverless package failed (${run.status ?? run.signal})`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { package: { type: 'string' }, stage: { type: 'string', default: 'rehearsal' } } });
  const say = (line: string) => process.stdout.write(`[rehearsal] ${line}\n`);
  const given = values.package ?? process.env.REHEARSAL_PACKAGE_DIR;
  const packageDir = given ? path.resolve(given) : await mkdtemp(path.join(tmpdir(), 'cgp-rehearsal-package-'));
  const started = Date.now();
  const database = await startTestDatabase();
  try {
    if (!given) {
      say(`packaging the service for the stage ${values.stage} into ${packageDir}`);
      packageService(packageDir, values.stage);
    }
    const rehearsal = await rehearseDeploy({
      packageDir,
      stage: given ? readPackageState(packageDir).stage : values.stage,
      databaseUrl: database.url,
      log: say,
    });
    say(`${rehearsal.checks.length} checks, ${rehearsal.failures.length} failed, in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    for (const failure of rehearsal.failures) say(`FAILED: ${failure}`);
    return rehearsal.failures.length ? 1 : 0;
  } finally {
    await database.stop();
    if (!given) await rm(packageDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`[rehearsal] ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
