import type { NativeCompile } from '@cgp/cue';

import { lazily } from '#lib/cache/lazy';
import type { Settings } from '#lib/settings/index';
import { getSettings } from '#lib/settings/shared-settings';

import {
  type CueCompileCheck,
  type CueScriptCheck,
  type DisagreementSink,
  type EngineEntity,
  engineFailure,
  type EngineResource,
  type EngineResult,
  type PolicyEngine,
} from '../engine';
import { NATIVE_CUE_LIBRARY, type NativeCueLibrary, NativeEvaluator, type NativeWork } from './native-evaluator';
import { getReferenceEvaluator } from './reference-evaluator';

/** The reference evaluator (CUE v0.4, reference-evaluator.ts): what the CUE engine asks of it. */
export interface ReferenceEvaluator extends PolicyEngine {
  check(script: string): Promise<CueCompileCheck>;
}

type Route = { to: 'native'; work: NativeWork } | { to: 'reference' } | { to: 'refused'; result: EngineResult };

/** The text of an error up to its first ': ', the path it names: what shadow mode compares of the errors. */
const firstPath = (result: EngineResult) => result.errors[0]?.split(': ')[0];

/** A disagreement: the verdicts differ, or whether the engine could judge, or the path of the first error. */
export const disagree = (native: EngineResult, reference: EngineResult) =>
  native.satisfiesPolicy !== reference.satisfiesPolicy || native.isError !== reference.isError || firstPath(native) !== firstPath(reference);

/** A native refusal as a pair's result, in the shape the reference evaluator gives a script that does not compile. */
function refusedResult(entity: EngineEntity, compiled: Extract<NativeCompile, { message: string }>): EngineResult {
  const file = entity.kind === 'metric' ? 'metric.cue' : 'policy.cue';
  const where = compiled.line === undefined ? '' : `:\n    ${file}:${compiled.line}:${compiled.column ?? 1}`;
  return { satisfiesPolicy: false, isError: true, errors: [`${compiled.message}${where}`] };
}

/**
 * The CUE engine (`engine: cue`): it routes each policy to an evaluator by cue-config.evaluator
 * (docs/cue-policies.md, "Which evaluator runs a policy"). `native`: policies the native evaluator
 * compiles run in process, the others (and those saved with `evaluator: wasm`) by the reference
 * evaluator, CUE v0.4, started only when one needs it. `reference`: the reference evaluator only.
 * `shadow`: both; the reference verdicts answer, and each pair on which native would have answered
 * differently goes to the disagreement sink.
 */
class CueEngine implements PolicyEngine {
  constructor(
    private readonly setting: Settings['cueConfig']['evaluator'],
    private readonly native: NativeEvaluator,
    /** The reference evaluator, asked for only when needed. */
    private readonly reference: () => Promise<ReferenceEvaluator>,
  ) {}

  async evaluate(
    entities: readonly EngineEntity[],
    resources: readonly EngineResource[],
    signal?: AbortSignal,
    onDisagreement?: DisagreementSink,
  ): Promise<EngineResult[][]> {
    if (this.setting === 'reference') return this.evaluateReference(entities, resources, signal);
    const routes = entities.map((entity) => this.route(entity));
    const nativeWork = routes.flatMap((route) => (route.to === 'native' ? [route.work] : []));
    const referenceEntities = this.setting === 'shadow' ? entities : entities.filter((_, index) => routes[index].to === 'reference');
    const [nativeRows, referenceRows] = await Promise.all([
      this.evaluateNative(nativeWork, resources, signal),
      this.evaluateReference(referenceEntities, resources, signal),
    ]);
    let nativeNext = 0;
    let referenceNext = 0;
    return routes.map((route, index) => {
      const reference = this.setting === 'shadow' || route.to === 'reference' ? referenceRows[referenceNext++] : undefined;
      const native = route.to === 'native' ? nativeRows[nativeNext++] : route.to === 'refused' ? resources.map(() => route.result) : undefined;
      if (!reference) return native as EngineResult[];
      if (native && onDisagreement) {
        const { id, version, kind } = entities[index];
        native.forEach((result, r) => {
          if (disagree(result, reference[r]))
            onDisagreement({ entity: { id, version, kind }, resourceId: resources[r].id, native: result, wasm: reference[r] });
        });
      }
      return reference;
    });
  }

  /** The native path's results, with the pairs only CUE itself can judge answered by the reference evaluator. */
  private async evaluateNative(work: readonly NativeWork[], resources: readonly EngineResource[], signal?: AbortSignal): Promise<EngineResult[][]> {
    const { results, deferred } = await this.native.evaluate(work, resources, signal);
    await Promise.all(
      deferred.map(async (indices, w) => {
        if (indices.length === 0) return;
        const [answers] = await this.evaluateReference(
          [work[w].entity],
          indices.map((r) => resources[r]),
          signal,
        );
        indices.forEach((r, at) => (results[w][r] = answers[at]));
      }),
    );
    return results;
  }

  /** The reference evaluator's results; asks for it only when there is something to evaluate. */
  private async evaluateReference(entities: readonly EngineEntity[], resources: readonly EngineResource[], signal?: AbortSignal): Promise<EngineResult[][]> {
    if (entities.length === 0) return [];
    let evaluator: ReferenceEvaluator;
    try {
      evaluator = await this.reference();
    } catch (error) {
      const failure = engineFailure(`the reference CUE evaluator could not start: ${(error as Error).message}`);
      return entities.map(() => resources.map(() => failure));
    }
    return evaluator.evaluate(entities, resources, signal);
  }

  /**
   * Which path evaluates the entity: the one it was saved with, else the native one when it
   * compiles there. A version saved before the choice existed (no evaluator) that the native
   * evaluator refuses goes to CUE v0.4, which judged it until then: what worked keeps working.
   */
  private route(entity: EngineEntity): Route {
    if (entity.cueScript === null || entity.evaluator === 'wasm') return { to: 'reference' };
    const compiled = this.native.compile(entity.cueScript);
    if (compiled.ok) return { to: 'native', work: { entity, program: compiled.program } };
    if (compiled.unsupported !== undefined || !entity.evaluator) return { to: 'reference' };
    return { to: 'refused', result: refusedResult(entity, compiled) };
  }

  /**
   * The check when a policy is saved, which also decides its evaluator: native when the native
   * evaluator compiles it; otherwise the reference evaluator's check decides whether it is refused,
   * and the policy runs there, with the reason. A script both refuse is refused with the native
   * message. Throws the reference evaluator's CueRunFailure when that check gave no answer.
   */
  async check(script: string): Promise<CueScriptCheck> {
    if (this.setting === 'reference') return withEvaluator(await (await this.reference()).check(script), 'cue-config.evaluator is reference');
    const compiled = this.native.compile(script);
    if (compiled.ok) return { ok: true, evaluator: 'native', evaluatorReason: null };
    const reference = await (await this.reference()).check(script);
    if (compiled.unsupported !== undefined) return withEvaluator(reference, compiled.unsupported);
    if (reference.ok) return { ok: true, evaluator: 'wasm', evaluatorReason: `the native evaluator refused it: ${compiled.message}` };
    const { message, line, column } = compiled;
    return { ok: false, message, ...(line === undefined ? {} : { line, ...(column === undefined ? {} : { column }) }) };
  }
}

const withEvaluator = (check: CueCompileCheck, reason: string): CueScriptCheck => (check.ok ? { ok: true, evaluator: 'wasm', evaluatorReason: reason } : check);

/** The CUE engine the settings ask for; `reference` gives the reference evaluator (by default this process's shared one). */
export function createCueEngine(
  config: Pick<Settings['cueConfig'], 'evaluator' | 'maxSteps'>,
  reference: () => Promise<ReferenceEvaluator> = getReferenceEvaluator,
  native: NativeCueLibrary = NATIVE_CUE_LIBRARY,
): CueEngine {
  return new CueEngine(config.evaluator, new NativeEvaluator(native, config.maxSteps), reference);
}

// A process resource (compiled policies, the reference evaluator's workers), so made once from the process's settings.
const shared = lazily(async () => createCueEngine((await getSettings()).cueConfig));

/** The CUE engine of this process (or Lambda container): compiled policies are kept across calls. */
export const getCueEngine = (): Promise<CueEngine> => shared.get();
