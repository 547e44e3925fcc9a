import { getSettings, type Settings } from '#lib/settings/index';

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
import { getCueEngine } from './cue-engine';
import type { NativeCompile } from './native';
import { NATIVE_EVALUATOR, NativeCueEngine, type NativeEvaluator, type NativeWork } from './native-cue-engine';

/** The WebAssembly path (CueEngine): what the evaluators ask of it. */
export interface WasmCueEngine extends PolicyEngine {
  check(script: string): Promise<CueCompileCheck>;
}

type Route = { to: 'native'; work: NativeWork } | { to: 'wasm' } | { to: 'refused'; result: EngineResult };

/** The text of an error up to its first ': ', the path it names: what shadow mode compares of the errors. */
const firstPath = (result: EngineResult) => result.errors[0]?.split(': ')[0];

/** A disagreement: the verdicts differ, or whether the engine could judge, or the path of the first error. */
export const disagree = (native: EngineResult, wasm: EngineResult) =>
  native.satisfiesPolicy !== wasm.satisfiesPolicy || native.isError !== wasm.isError || firstPath(native) !== firstPath(wasm);

/** A native refusal as a pair's result, in the shape the WebAssembly path gives a script that does not compile. */
function refusedResult(entity: EngineEntity, compiled: Extract<NativeCompile, { message: string }>): EngineResult {
  const file = entity.kind === 'metric' ? 'metric.cue' : 'policy.cue';
  const where = compiled.line === undefined ? '' : `:\n    ${file}:${compiled.line}:${compiled.column ?? 1}`;
  return { satisfiesPolicy: false, isError: true, errors: [`${compiled.message}${where}`] };
}

/**
 * The CUE engine the service uses, by cue-config.evaluator (docs/cue-policies.md, "Which evaluator
 * runs a policy"). `native`: policies the native evaluator compiles run in process, the others (and
 * those saved with `evaluator: wasm`) by the WebAssembly engine, created only when one needs it.
 * `wasm`: the WebAssembly engine only. `shadow`: both; the WebAssembly verdicts answer, and each
 * pair on which native would have answered differently goes to the disagreement sink.
 */
class CueEvaluators implements PolicyEngine {
  constructor(
    private readonly setting: Settings['cueConfig']['evaluator'],
    private readonly native: NativeCueEngine,
    /** The WebAssembly engine, asked for only when needed. */
    private readonly wasm: () => Promise<WasmCueEngine>,
  ) {}

  async evaluate(
    entities: readonly EngineEntity[],
    resources: readonly EngineResource[],
    signal?: AbortSignal,
    onDisagreement?: DisagreementSink,
  ): Promise<EngineResult[][]> {
    if (this.setting === 'wasm') return this.evaluateWasm(entities, resources, signal);
    const routes = entities.map((entity) => this.route(entity));
    const nativeWork = routes.flatMap((route) => (route.to === 'native' ? [route.work] : []));
    const wasmEntities = this.setting === 'shadow' ? entities : entities.filter((_, index) => routes[index].to === 'wasm');
    const [nativeRows, wasmRows] = await Promise.all([this.native.evaluate(nativeWork, resources, signal), this.evaluateWasm(wasmEntities, resources, signal)]);
    let nativeNext = 0;
    let wasmNext = 0;
    return routes.map((route, index) => {
      const wasm = this.setting === 'shadow' || route.to === 'wasm' ? wasmRows[wasmNext++] : undefined;
      const native = route.to === 'native' ? nativeRows[nativeNext++] : route.to === 'refused' ? resources.map(() => route.result) : undefined;
      if (!wasm) return native as EngineResult[];
      if (native && onDisagreement) {
        const { id, version, kind } = entities[index];
        native.forEach((result, r) => {
          if (disagree(result, wasm[r])) onDisagreement({ entity: { id, version, kind }, resourceId: resources[r].id, native: result, wasm: wasm[r] });
        });
      }
      return wasm;
    });
  }

  /** The WebAssembly engine's results; asks for the engine only when there is something to evaluate. */
  private async evaluateWasm(entities: readonly EngineEntity[], resources: readonly EngineResource[], signal?: AbortSignal): Promise<EngineResult[][]> {
    if (entities.length === 0) return [];
    let engine: WasmCueEngine;
    try {
      engine = await this.wasm();
    } catch (error) {
      const failure = engineFailure(`the WebAssembly CUE engine could not start: ${(error as Error).message}`);
      return entities.map(() => resources.map(() => failure));
    }
    return engine.evaluate(entities, resources, signal);
  }

  /**
   * Which path evaluates the entity: the one it was saved with, else the native one when it
   * compiles there. A version saved before the choice existed (no evaluator) that the native
   * evaluator refuses goes to CUE v0.4, which judged it until then: what worked keeps working.
   */
  private route(entity: EngineEntity): Route {
    if (entity.cueScript === null || entity.evaluator === 'wasm') return { to: 'wasm' };
    const compiled = this.native.compile(entity.cueScript);
    if (compiled.ok) return { to: 'native', work: { entity, program: compiled.program } };
    if (compiled.unsupported !== undefined || !entity.evaluator) return { to: 'wasm' };
    return { to: 'refused', result: refusedResult(entity, compiled) };
  }

  /**
   * The check when a policy is saved, which also decides its evaluator: native when the native
   * evaluator compiles it; otherwise the WebAssembly check decides whether it is refused, and the
   * policy runs there, with the reason. A script both refuse is refused with the native message.
   * Throws the WebAssembly engine's CueRunFailure when that check gave no answer.
   */
  async check(script: string): Promise<CueScriptCheck> {
    if (this.setting === 'wasm') return withEvaluator(await (await this.wasm()).check(script), 'cue-config.evaluator is wasm');
    const compiled = this.native.compile(script);
    if (compiled.ok) return { ok: true, evaluator: 'native', evaluatorReason: null };
    const wasm = await (await this.wasm()).check(script);
    if (compiled.unsupported !== undefined) return withEvaluator(wasm, compiled.unsupported);
    if (wasm.ok) return { ok: true, evaluator: 'wasm', evaluatorReason: `the native evaluator refused it: ${compiled.message}` };
    const { message, line, column } = compiled;
    return { ok: false, message, ...(line === undefined ? {} : { line, ...(column === undefined ? {} : { column }) }) };
  }
}

const withEvaluator = (check: CueCompileCheck, reason: string): CueScriptCheck => (check.ok ? { ok: true, evaluator: 'wasm', evaluatorReason: reason } : check);

/** The evaluators the settings ask for; `wasm` gives the WebAssembly engine (by default this process's shared one). */
export function createCueEvaluators(
  config: Pick<Settings['cueConfig'], 'evaluator' | 'maxSteps'>,
  wasm: () => Promise<WasmCueEngine> = getCueEngine,
  native: NativeEvaluator = NATIVE_EVALUATOR,
): CueEvaluators {
  return new CueEvaluators(config.evaluator, new NativeCueEngine(native, config.maxSteps), wasm);
}

let shared: Promise<CueEvaluators> | undefined;

/** The evaluators of this process (or Lambda container): compiled policies are kept across calls. */
export function getCueEvaluators(): Promise<CueEvaluators> {
  shared ??= getSettings().then((settings) => createCueEvaluators(settings.cueConfig));
  shared.catch(() => {
    shared = undefined;
  });
  return shared;
}
