import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';

import { compileNative, evaluateNative, type NativeCompile, type NativeOptions, type NativeProgram, type NativeVerdict } from '@cgp/cue';

import { LruMap } from '#lib/cache/lru-map';

import { type EngineEntity, engineFailure, type EngineResource, type EngineResult } from '../engine';
import { ABORTED_MESSAGE } from './cue-runner';

/** What the native evaluator asks of the native CUE library (packages/cue, `@cgp/cue`); tests give a stub. */
export interface NativeCueLibrary {
  compile(script: string, maxSteps: number): NativeCompile;
  evaluate(program: NativeProgram, descriptor: unknown, options: NativeOptions): NativeVerdict;
}

export const NATIVE_CUE_LIBRARY: NativeCueLibrary = { compile: compileNative, evaluate: evaluateNative };

/** The library's verdict as the platform's result: `failed` is an `isError` result, never a pass. */
export function engineResultOf(verdict: NativeVerdict): EngineResult {
  if (verdict.kind === 'failed') return engineFailure(verdict.reason);
  if (verdict.kind === 'deferred') return engineFailure(`the native evaluator cannot judge this: ${verdict.reason}`);
  if (verdict.kind === 'violated') return { satisfiesPolicy: false, isError: false, errors: [...verdict.violations] };
  return verdict.value === undefined
    ? { satisfiesPolicy: true, isError: false, errors: [] }
    : { satisfiesPolicy: true, isError: false, errors: [], value: verdict.value };
}

/** Compiled scripts kept per container; a policy set larger than this is compiled again as it comes round. */
const COMPILED_KEPT = 1000;

/**
 * Native work runs in the function's own thread: it gives the event loop a turn this often
 * (timers, lease renewals, aborts, and the replies of the database to a write of the pages before,
 * which would otherwise wait for the turn's end at each of their round trips).
 */
const TURN_MS = 4;

/** Text that opens like JSON is read as JSON (lib/governance/evaluation/descriptor.ts): what it gives is never cyclic. */
const JSON_TEXT = /^\s*[[{]/;

/**
 * A descriptor CUE could not read (cyclic, as YAML aliases can make it) fails, as on the reference
 * evaluator, rather than pass a policy that never looks at the cycle. A descriptor read from JSON
 * text (or written as it) needs no check.
 */
function notJson(resource: EngineResource): string | undefined {
  if (JSON_TEXT.test(resource.content)) return undefined;
  try {
    JSON.stringify(resource.descriptor);
    return undefined;
  } catch (error) {
    return `the descriptor of ${resource.id} cannot be written as JSON: ${(error as Error).message}`;
  }
}

/** The native path's results, and per entity the resources left to the reference evaluator. */
export interface NativeRows {
  readonly results: EngineResult[][];
  readonly deferred: readonly (readonly number[])[];
}

/** One entity the native path evaluates, with its program. */
export interface NativeWork {
  readonly entity: EngineEntity;
  readonly program: NativeProgram;
}

/**
 * The native path: each script compiled once per container (kept by its text's hash, so a draft
 * edited in place is compiled again), then unified with each descriptor in process, within
 * cue-config.max-steps per pair. No workers.
 */
export class NativeEvaluator {
  private readonly compiled = new LruMap<string, NativeCompile>(COMPILED_KEPT);

  constructor(
    private readonly library: NativeCueLibrary,
    private readonly maxSteps: number,
  ) {}

  compile(script: string): NativeCompile {
    const key = createHash('sha256').update(script).digest('base64');
    const kept = this.compiled.get(key);
    if (kept) return kept;
    const compiled = this.compileGuarded(script);
    this.compiled.set(key, compiled);
    return compiled;
  }

  private compileGuarded(script: string): NativeCompile {
    try {
      return this.library.compile(script, this.maxSteps);
    } catch (error) {
      return { ok: false, unsupported: `the native evaluator failed compiling it: ${(error as Error).message}` };
    }
  }

  /**
   * `results[workIndex][resourceIndex]`; never throws, and never answers a fault or an exhausted
   * budget with a pass. `deferred[workIndex]`: the resources only CUE itself can judge for it
   * (their results are failures until the reference evaluator answers them).
   */
  async evaluate(work: readonly NativeWork[], resources: readonly EngineResource[], signal?: AbortSignal): Promise<NativeRows> {
    const results: EngineResult[][] = work.map(() => []);
    const deferred: number[][] = work.map(() => []);
    if (work.length === 0) return { results, deferred };
    let turnStarted = performance.now();
    for (const [r, resource] of resources.entries()) {
      if (performance.now() - turnStarted > TURN_MS) {
        await nextTurn();
        turnStarted = performance.now();
      }
      const unreadable = signal?.aborted ? ABORTED_MESSAGE : notJson(resource);
      work.forEach(({ entity, program }, w) => {
        if (unreadable) {
          results[w][r] = engineFailure(unreadable);
          return;
        }
        const verdict = this.evaluateOne(entity, program, resource);
        if (verdict.kind === 'deferred') deferred[w].push(r);
        results[w][r] = engineResultOf(verdict);
      });
    }
    return { results, deferred };
  }

  private evaluateOne(entity: EngineEntity, program: NativeProgram, resource: EngineResource): NativeVerdict {
    try {
      return this.library.evaluate(program, resource.descriptor, {
        requireConcrete: entity.requireConcrete,
        metric: entity.kind === 'metric',
        maxSteps: this.maxSteps,
      });
    } catch (error) {
      return { kind: 'failed', reason: `the native evaluator failed: ${(error as Error).message}` };
    }
  }
}
