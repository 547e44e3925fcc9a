import { performance } from 'node:perf_hooks';

import type { ServiceContext } from '#lib/db/client';
import { Unavailable } from '#lib/errors/domain-errors';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { traced } from '#lib/observability/tracing';
import { callerTargetTimeoutsOf } from '#lib/platform/http-client';

import { CueRunFailure } from './cue/cue-runner';
import type { CueScriptCheck, DisagreementSink, EngineEntity, EngineResource, EngineResult, PolicyEngine } from './engine';
import { RemoteEngine } from './remote/remote-engine';

// Loaded on first use: functions that never meet a CUE policy never load it, and the reference evaluator's WebAssembly
// workers start only when a policy needs them (cue/cue-engine.ts).
const loadCueEngine = () => import('./cue/cue-engine').then(({ getCueEngine }) => getCueEngine());

/**
 * A CUE script on its own, as it is checked when a policy is saved, and the evaluator that will run
 * it (cue-config.evaluator). A script that does not finish
 * within cue-config.timeout (or prints past its cap) is the author's to change: a failed check.
 * When CUE itself gives no answer (crash, no worker) the script is not judged: 503, so the caller
 * retries rather than edits.
 */
export async function checkCueScript(script: string): Promise<CueScriptCheck> {
  const engine = await loadCueEngine();
  try {
    return await engine.check(script);
  } catch (error) {
    if (error instanceof CueRunFailure && error.overLimit) return { ok: false, message: error.message, unfinished: true };
    if (error instanceof CueRunFailure) throw new Unavailable(`The CUE engine could not check cueScript: ${error.message}`);
    throw error;
  }
}

// Loaded on first use too: the openai SDK stays out of functions that never meet an LLM policy.
const loadLlmEngine = (ctx: ServiceContext) => import('./llm/stored-llm-engine').then(({ storedLlmEngine }) => storedLlmEngine(ctx));

/** What the remote and LLM engines call with: the service's settings and database (`cgp test` runs CUE only, without them). */
export type EngineContext = ServiceContext;

async function engineOf(kind: EngineEntity['engine'], ctx: EngineContext | undefined): Promise<PolicyEngine> {
  if (kind === 'cue') return loadCueEngine();
  if (!ctx) throw new Error(`A ${kind} policy is evaluated by the service, with its settings`);
  if (kind === 'llm') return loadLlmEngine(ctx);
  return new RemoteEngine(callerTargetTimeoutsOf(ctx.settings));
}

/**
 * Every entity against every resource, each entity by its own engine (the CUE ones in shared runs);
 * `results[entityIndex][resourceIndex]`, in the order given. `onDisagreement` hears of the pairs
 * the two CUE evaluators judge differently (cue-config.evaluator = shadow).
 */
export async function evaluateEntities(
  entities: readonly EngineEntity[],
  resources: readonly EngineResource[],
  { ctx, signal, onDisagreement }: { ctx?: EngineContext; signal?: AbortSignal; onDisagreement?: DisagreementSink } = {},
): Promise<EngineResult[][]> {
  const results: EngineResult[][] = new Array(entities.length);
  await Promise.all(
    (['cue', 'remote', 'llm'] as const).map(async (kind) => {
      const indexes = entities.flatMap((entity, index) => (entity.engine === kind ? [index] : []));
      if (indexes.length === 0 || resources.length === 0) {
        for (const index of indexes) results[index] = [];
        return;
      }
      const engine = await engineOf(kind, ctx);
      const started = performance.now();
      const answers = await traced(`## ${kind} engine`, () =>
        engine.evaluate(
          indexes.map((index) => entities[index]),
          resources,
          signal,
          onDisagreement,
        ),
      );
      recordMetric('EngineCallDuration', MetricUnit.Milliseconds, performance.now() - started, { engine: kind });
      indexes.forEach((index, i) => {
        results[index] = answers[i];
      });
    }),
  );
  return results;
}
