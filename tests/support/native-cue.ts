import { compileNative, evaluateNative, type NativeOptions, type NativeProgram } from '@cgp/cue';

import { engineResultOf } from '#lib/governance/engines/cue/native-evaluator';
import type { EngineEntity } from '#lib/governance/engines/engine';

/** A script the native evaluator compiles; throws with the refusal when it does not. */
export function compiled(script: string): NativeProgram {
  const result = compileNative(script);
  if (!result.ok) throw new Error(`did not compile: ${JSON.stringify(result)}`);
  return result.program;
}

/** The native library's verdict as the platform's result (what the native evaluator answers). */
export const judgeNative = (program: NativeProgram, descriptor: unknown, options: NativeOptions) =>
  engineResultOf(evaluateNative(program, descriptor, options));

/** The native verdict of a policy (not a metric) on a descriptor. */
export const vet = (script: string, descriptor: unknown, requireConcrete = true) =>
  judgeNative(compiled(script), descriptor, { requireConcrete, metric: false });

export const PASS = { satisfiesPolicy: true, isError: false, errors: [] };

/** A CUE policy (not a metric) as the engines take it, for asking CUE v0.4 through the platform's path. */
export const cuePolicy = (id: string, script: string, requireConcrete = true): EngineEntity => ({
  id,
  version: 1,
  kind: 'policy',
  engine: 'cue',
  cueScript: script,
  requireConcrete,
  remoteEngineUrl: null,
});
