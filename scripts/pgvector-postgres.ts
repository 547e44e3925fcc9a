/**
 * A PostgreSQL server with pgvector, for the bench and the pgvector tests only: the embedded
 * PostgreSQL has no pgvector, and nothing here installs it. It is started from a Debian
 * installation of the machine (`apt-get install postgresql-NN postgresql-NN-pgvector`, or pgvector
 * built into it) when one is there: /usr/lib/postgresql/NN/bin beside
 * /usr/share/postgresql/NN/extension/vector.control.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { freePort } from './free-port';
import type { LocalPostgres } from './local-postgres';
import { makeFolderOthersCanEnter, runsAsPostgresUser } from './postgres-runtime';

const INSTALLATIONS = '/usr/lib/postgresql';

/** What to say when there is none. */
export const PGVECTOR_MISSING = `no PostgreSQL with pgvector under ${INSTALLATIONS} (apt-get install postgresql-NN-pgvector)`;

/** The bin folder of the newest PostgreSQL of this machine that has pgvector, if any. */
export function pgvectorBinaries(): string | undefined {
  if (!existsSync(INSTALLATIONS)) return undefined;
  const versions = readdirSync(INSTALLATIONS)
    .filter((version) => existsSync(path.join('/usr/share/postgresql', version, 'extension', 'vector.control')))
    .filter((version) => existsSync(path.join(INSTALLATIONS, version, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(INSTALLATIONS, versions[0], 'bin') : undefined;
}

/** PostgreSQL refuses to run as root: as root, its tools run as the postgres user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (!runsAsPostgresUser()) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(binaries: string, tool: string, args: string[]): void {
  const result = spawnSync(path.join(binaries, tool), args, { encoding: 'utf8', ...runAs() });
  if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr || result.stdout || result.error?.message}`);
}

/** Starts a throw-away server with pgvector on a free port (trust authentication, 127.0.0.1 only), or answers undefined. */
export async function startPgvectorPostgres(): Promise<LocalPostgres | undefined> {
  const binaries = pgvectorBinaries();
  if (!binaries) return undefined;
  const folder = await mkdtemp(path.join(tmpdir(), 'cgp-pgvector-'));
  await makeFolderOthersCanEnter(folder);
  const owner = runAs();
  if (owner) await chown(folder, owner.uid, owner.gid);
  const data = path.join(folder, 'data');
  const port = await freePort();
  const stop = async () => {
    if (existsSync(path.join(data, 'postmaster.pid'))) run(binaries, 'pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
    await rm(folder, { recursive: true, force: true });
  };
  try {
    run(binaries, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${folder}`;
    run(binaries, 'pg_ctl', ['start', '-D', data, '-w', '-l', path.join(folder, 'server.log'), '-o', options]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, stop };
}
