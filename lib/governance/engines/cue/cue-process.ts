import { spawn } from 'node:child_process';

import type { Settings } from '#lib/settings/index';

import { ConcurrencyLimit } from './concurrency-limit';
import { ABORTED_MESSAGE, type CueJob, type CueOutput, CueRunFailure, type CueRunner, outputCapped, timedOut } from './cue-runner';
import { inJobDirectory } from './job-directory';

interface ProcessLimits {
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
}

/**
 * Runs `executable args...` the way the `cue` command line is meant to be run: no shell, in
 * `cwd`, killed (with its process group) when it outlives the timeout or prints more than the cap.
 */
function runCueExecutable(executable: string, args: readonly string[], cwd: string, limits: ProcessLimits): Promise<CueOutput> {
  return new Promise<CueOutput>((resolve, reject) => {
    if (limits.signal?.aborted) return reject(new CueRunFailure(ABORTED_MESSAGE));
    // Its own process group, so that a wrapper script and what it started are killed together.
    const child = spawn(executable, args, { cwd, shell: false, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let failure: CueRunFailure | undefined;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const kill = (reason: CueRunFailure) => {
      failure ??= reason;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill(timedOut(limits.timeoutMs)), limits.timeoutMs);
    const onAbort = () => kill(new CueRunFailure(ABORTED_MESSAGE));
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    const collect = (chunks: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxOutputBytes) kill(outputCapped(limits.maxOutputBytes));
      else chunks.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    child.on('error', (error) => settle(() => reject(failure ?? new CueRunFailure(`could not run ${executable}: ${error.message}`))));
    child.on('close', (code, signal) =>
      settle(() => {
        if (failure) reject(failure);
        else if (code === null) reject(new CueRunFailure(`${executable} was killed by ${signal}`));
        else resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
      }),
    );
  });
}

export interface CueProcessRunnerOptions {
  readonly executable: string;
  /** Processes run at the same time. */
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

/** `cue-config.cue-process-path`: every run is one process of that executable in a private folder. */
export class CueProcessRunner implements CueRunner {
  readonly concurrency: number;
  private readonly limit: ConcurrencyLimit;

  constructor(private readonly options: CueProcessRunnerOptions) {
    this.concurrency = options.concurrency;
    this.limit = new ConcurrencyLimit(options.concurrency);
  }

  run(job: CueJob, signal?: AbortSignal): Promise<CueOutput> {
    const { executable, timeoutMs, maxOutputBytes } = this.options;
    return this.limit.run(() => inJobDirectory(job, (args, directory) => runCueExecutable(executable, args, directory, { timeoutMs, maxOutputBytes, signal })));
  }

  async close(): Promise<void> {}
}

/**
 * The start-up check of `cue-config.cue-process-path`: `<path> version` must succeed and print a
 * `cue version ...` line, which is returned. Throws an error naming the setting otherwise.
 */
export async function checkCueExecutable(settings: {
  cueConfig: Pick<Settings['cueConfig'], 'cueProcessPath' | 'timeout' | 'maxOutputBytes'>;
}): Promise<string> {
  const { cueProcessPath, timeout, maxOutputBytes } = settings.cueConfig;
  if (!cueProcessPath) throw new Error('cue-config.cue-process-path is not set');
  const problem = (what: string) => new Error(`cue-config.cue-process-path: \`${cueProcessPath} version\` ${what}`);
  let output: CueOutput;
  try {
    output = await inJobDirectory({ args: ['version'], files: {} }, (args, directory) =>
      runCueExecutable(cueProcessPath, args, directory, { timeoutMs: timeout, maxOutputBytes }),
    );
  } catch (error) {
    throw problem(`failed: ${(error as Error).message}`);
  }
  const printed = (output.stderr || output.stdout).trim().slice(0, 300);
  if (output.code !== 0) throw problem(`exited with code ${output.code}${printed ? `: ${printed}` : ''}`);
  const version = /^cue version .*$/m.exec(output.stdout)?.[0];
  if (!version) throw problem(`did not print a cue version${printed ? `: ${printed}` : ''}`);
  return `${version.trim()} (${cueProcessPath})`;
}
