import { lazily } from '#lib/cache/lazy';
import type { Settings } from '#lib/settings/index';
import { getSettings } from '#lib/settings/shared-settings';

import { type CueCompileCheck, type EngineEntity, engineFailure, type EngineResource, type EngineResult, type PolicyEngine } from '../engine';
import { type BatchEntity, evaluateBatch } from './batch-evaluation';
import { planBatches, type PlanLimits } from './batch-planning';
import { ConcurrencyLimit } from './concurrency-limit';
import { attribute, runJob, runNames } from './cue-batch';
import { parseCueMessages } from './cue-messages';
import { CueProcessRunner } from './cue-process';
import type { CueRunner } from './cue-runner';
import { CueWorkerPool } from './cue-worker-pool';
import { policySource, scriptPosition } from './policy-source';
import { standaloneProblems } from './standalone-syntax';

/**
 * Measured with bench/cue-throughput.ts: runs of ~64 descriptors of 4 KB (~0.5 s each) are as
 * fast as larger ones and keep the memory of a run small; below 128 KB of work one run beats two,
 * which would each pay CUE's ~80 ms start and read the descriptors again.
 */
const DEFAULT_PLAN_LIMITS: Omit<PlanLimits, 'concurrency'> = { maxRunBytes: 256 * 1024, minRunBytes: 128 * 1024 };

/**
 * The reference CUE evaluator: CUE v0.4 itself (docs/cue-policies.md), policies and metrics evaluated in
 * batches by a runner (WebAssembly workers or an external `cue` executable). The CUE engine (cue-engine.ts)
 * sends it what the native evaluator does not take, and everything under cue-config.evaluator = reference.
 */
export class CueReferenceEvaluator implements PolicyEngine {
  private readonly batches: ConcurrencyLimit;

  constructor(
    private readonly runner: CueRunner,
    private readonly limits: Omit<PlanLimits, 'concurrency'> = DEFAULT_PLAN_LIMITS,
  ) {
    // One batch more than there are workers, so none waits while a batch reads its last answer.
    this.batches = new ConcurrencyLimit(runner.concurrency + 1);
  }

  async evaluate(entities: readonly EngineEntity[], resources: readonly EngineResource[], signal?: AbortSignal): Promise<EngineResult[][]> {
    const results: (EngineResult | undefined)[][] = entities.map(() => new Array(resources.length).fill(undefined));
    try {
      const descriptors = resources.map((resource, index) => {
        try {
          return JSON.stringify(resource.descriptor) ?? 'null';
        } catch (error) {
          // Too deep or cyclic: this resource fails, the others are still evaluated.
          for (const row of results) row[index] = engineFailure(`the descriptor of ${resource.id} cannot be written as JSON: ${(error as Error).message}`);
          return undefined;
        }
      });
      const cueEntities: (BatchEntity & { requireConcrete: boolean })[] = [];
      entities.forEach((entity, index) => {
        if (entity.engine !== 'cue' || entity.cueScript === null) {
          results[index].fill(engineFailure(`${entity.kind} ${entity.id} v${entity.version} has no CUE script`));
        } else {
          cueEntities.push({ index, source: policySource(entity.cueScript), metric: entity.kind === 'metric', requireConcrete: entity.requireConcrete });
        }
      });
      // Scripts the bracket scanner cannot vouch for must first pass CUE on their own.
      const refused = new Set<number>();
      await Promise.all(
        cueEntities
          .filter((entity) => !entity.source.selfContained)
          .map(async ({ index, source }) => {
            try {
              const problems = await this.batches.run(() => standaloneProblems(this.runner, source, signal));
              if (problems.length === 0) return;
              results[index].fill({ satisfiesPolicy: false, isError: true, errors: problems.map((problem) => problem.formatted) });
              refused.add(index);
            } catch (error) {
              results[index].fill(engineFailure((error as Error).message));
              refused.add(index);
            }
          }),
      );
      const runnable = cueEntities.filter((entity) => !refused.has(entity.index));
      const byIndex = new Map(runnable.map((entity) => [entity.index, entity]));
      const planned = planBatches(
        runnable.map((entity) => ({
          index: entity.index,
          requireConcrete: entity.requireConcrete,
          selfContained: entity.source.selfContained,
          scriptBytes: entity.source.script.length,
        })),
        descriptors.flatMap((text, index) => (text === undefined ? [] : [{ index, bytes: text.length }])),
        { ...this.limits, concurrency: this.runner.concurrency },
      );
      await Promise.all(
        planned.map((batch) =>
          this.batches.run(() =>
            evaluateBatch(
              this.runner,
              {
                requireConcrete: batch.requireConcrete,
                entities: batch.entities.map((index) => byIndex.get(index) as BatchEntity),
                resources: batch.resources,
              },
              (resource) => descriptors[resource] as string,
              (entity, resource, result) => {
                results[entity][resource] = result;
              },
              signal,
            ),
          ),
        ),
      );
    } catch (error) {
      // A fault of ours must still leave every pair with a result that is not a pass.
      const failure = engineFailure(`the CUE engine failed: ${(error as Error).message}`);
      for (const row of results) {
        row.forEach((result, resource) => {
          row[resource] = result ?? failure;
        });
      }
    }
    return results.map((row) => row.map((result) => result ?? engineFailure('the CUE engine gave no result for this pair')));
  }

  /**
   * The check when a policy is saved: the script on its own, in the file it is evaluated in.
   * A script that does not compile, or whose declarations conflict among themselves, or that is
   * not a struct, is refused with CUE's first message and its position in the script.
   * Throws a CueRunFailure when CUE gave no answer (timeout, crash).
   */
  async check(script: string): Promise<CueCompileCheck> {
    const source = policySource(script);
    if (!source.selfContained) {
      const [problem] = await standaloneProblems(this.runner, source);
      if (problem) return { ok: false, message: problem.message, ...(problem.line ? { line: problem.line, column: problem.column } : {}) };
    }
    const names = runNames();
    const output = await this.runner.run(runJob(names, 'export', [{ index: 0, source, metric: false, resources: [] }], () => 'null'));
    if (output.code === 0) return { ok: true };
    const [first] = parseCueMessages(output.stderr);
    if (!first) return { ok: false, message: `cue exited with code ${output.code}` };
    // Without positions: they are returned apart, as line and column.
    const attributed = attribute(names, { text: first.text, positions: [] }, new Map([[0, { source, metric: false }]]));
    const message = 'message' in attributed ? attributed.message : first.text;
    const position = first.positions.find((candidate) => candidate.file === names.policyFile(0));
    if (!position) return { ok: false, message };
    return { ok: false, message, ...scriptPosition(source, names.policy(0), position.line, position.column) };
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}

/** The reference evaluator the settings ask for: the `cue` executable of `cue-process-path`, else the WebAssembly pool. */
export function createReferenceEvaluator(config: Omit<Settings['cueConfig'], 'evaluator' | 'maxSteps'>): CueReferenceEvaluator {
  const { cueProcessPath, timeout, workers, recycleAfterRuns, maxOutputBytes } = config;
  const runner: CueRunner = cueProcessPath
    ? new CueProcessRunner({ executable: cueProcessPath, concurrency: workers, timeoutMs: timeout, maxOutputBytes })
    : new CueWorkerPool({ workers, timeoutMs: timeout, recycleAfterRuns, maxOutputBytes });
  return new CueReferenceEvaluator(runner);
}

// A process resource (its worker threads), so made once from the process's settings: with the CUE
// engine (cue-engine.ts), the one place below the composition modules that reads them.
const shared = lazily(async () => createReferenceEvaluator((await getSettings()).cueConfig));

/** The engine of this process (or Lambda container), created on first use so its workers warm up once. */
export const getReferenceEvaluator = (): Promise<CueReferenceEvaluator> => shared.get();

/** Stops the shared engine's worker threads (the tests that start them end with it); the next getCueEngine starts a new engine. */
export async function closeReferenceEvaluator(): Promise<void> {
  const engine = shared.reset();
  if (engine) await (await engine).close();
}
