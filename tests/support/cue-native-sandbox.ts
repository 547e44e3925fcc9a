/**
 * The native CUE evaluator run apart, in a worker thread with a capped heap and a time limit per
 * step: a policy that makes it run away (a loop that never ends, a string grown until the heap is
 * full) is reported as such, and the worker replaced, instead of taking the test runner down.
 * Used by the differential (tests/support/cue-differential.ts).
 */
import { Worker } from 'node:worker_threads';

import type { NativeCompile } from '@cgp/cue';

import type { EngineResult } from '#lib/governance/engines/engine';

/** The native evaluator gave no answer within the limits: why (timeout, heap exhausted, worker crash). */
export interface Runaway {
  readonly runaway: string;
}

export type SandboxCompile = Exclude<NativeCompile, { ok: true }> | { readonly ok: true } | Runaway;

export interface SandboxLimits {
  /** The worker's old generation (MB): a runaway string fills it in about a second. */
  readonly memoryMb: number;
  /** Per compilation and per evaluation, in milliseconds (each takes a few ms when all goes well). */
  readonly timeoutMs: number;
  /** The evaluator's own step budget (compileNative's and evaluateNative's maxSteps). */
  readonly maxSteps: number;
}

type Reply = { type: 'ready' } | { type: 'compiled'; result: SandboxCompile } | { type: 'evaluated'; result: EngineResult };

/** One worker, and the answer it owes (a worker answers one message at a time). */
class SandboxWorker {
  private readonly worker: Worker;
  private pending?: { resolve: (reply: Reply) => void; reject: (reason: string) => void; timer?: NodeJS.Timeout };
  private dead?: string;
  readonly ready: Promise<void>;

  constructor(memoryMb: number) {
    this.worker = new Worker(new URL('./cue-native-sandbox-worker.mjs', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle((pending) => pending.resolve(reply)));
    this.worker.on('error', (error: Error & { code?: string }) =>
      this.die(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `heap of ${memoryMb} MB exhausted` : `worker failed: ${error.message}`),
    );
    this.worker.on('exit', (code) => this.die(`worker exited with code ${code}`));
    this.ready = new Promise<void>((resolve, reject) => {
      this.pending = { resolve: () => resolve(), reject: (reason) => reject(new Error(`the native sandbox did not start: ${reason}`)) };
    });
    // A spare closed before it started is not awaited by anyone.
    this.ready.catch(() => undefined);
  }

  private settle(action: (pending: NonNullable<SandboxWorker['pending']>) => void): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    clearTimeout(pending.timer);
    action(pending);
  }

  private die(reason: string): void {
    this.dead ??= reason;
    this.settle((pending) => pending.reject(reason));
  }

  /** The worker's reply, or a rejection with the reason it gave none (it is then terminated). */
  ask(message: unknown, timeoutMs: number): Promise<Reply> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.die(`no answer within ${timeoutMs} ms`);
        void this.worker.terminate();
      }, timeoutMs);
      this.pending = { resolve, reject, timer };
      this.worker.postMessage(message);
    });
  }

  get alive(): boolean {
    return this.dead === undefined;
  }

  close(): Promise<number> {
    this.dead ??= 'closed';
    return this.worker.terminate();
  }
}

export class NativeSandbox {
  private worker: SandboxWorker;
  /** Started ahead, so that replacing a worker that ran away costs no start-up. */
  private spare: SandboxWorker;
  private queue: Promise<unknown> = Promise.resolve();
  /** How many workers were replaced (each one a runaway). */
  replaced = 0;

  constructor(private readonly limits: SandboxLimits) {
    this.worker = new SandboxWorker(limits.memoryMb);
    this.spare = new SandboxWorker(limits.memoryMb);
  }

  private async replace(): Promise<void> {
    void this.worker.close();
    this.worker = this.spare;
    this.spare = new SandboxWorker(this.limits.memoryMb);
    this.replaced += 1;
    await this.worker.ready;
  }

  /**
   * Compiles a script and evaluates each descriptor in each mode, one after the other, until one
   * runs away (each costs the time limit or a full heap; the rest of the pairs are left unjudged).
   * `pairs` is undefined when the script does not compile (or ran away compiling).
   */
  run(
    script: string,
    descriptors: readonly unknown[],
    modes: readonly boolean[],
  ): Promise<{ compile: SandboxCompile; pairs?: (EngineResult | Runaway | undefined)[][] }> {
    const job = this.queue.then(() => this.runNow(script, descriptors, modes));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private async compile(script: string): Promise<SandboxCompile> {
    await this.worker.ready;
    try {
      const reply = await this.worker.ask({ type: 'compile', script, maxSteps: this.limits.maxSteps }, this.limits.timeoutMs);
      return reply.type === 'compiled' ? reply.result : { runaway: `unexpected reply ${reply.type}` };
    } catch (reason) {
      await this.replace();
      return { runaway: `compiling: ${String(reason)}` };
    }
  }

  private async runNow(script: string, descriptors: readonly unknown[], modes: readonly boolean[]) {
    const compile = await this.compile(script);
    if (!('ok' in compile) || !compile.ok) return { compile };
    const pairs: (EngineResult | Runaway | undefined)[][] = [];
    let ranAway = false;
    for (const requireConcrete of modes) {
      const row: (EngineResult | Runaway | undefined)[] = [];
      for (const descriptor of descriptors) {
        if (ranAway) {
          row.push(undefined);
          continue;
        }
        try {
          const reply = await this.worker.ask({ type: 'evaluate', descriptor, requireConcrete, maxSteps: this.limits.maxSteps }, this.limits.timeoutMs);
          row.push(reply.type === 'evaluated' ? reply.result : { runaway: `unexpected reply ${reply.type}` });
        } catch (reason) {
          row.push({ runaway: String(reason) });
          ranAway = true;
          await this.replace();
        }
      }
      pairs.push(row);
    }
    return { compile, pairs };
  }

  async close(): Promise<void> {
    await Promise.all([this.worker.close(), this.spare.close()]);
  }
}
