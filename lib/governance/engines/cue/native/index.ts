/**
 * The native CUE evaluator's public face: a policy compiled once, evaluated against descriptors in
 * process (docs/cue-policies.md), and whole files evaluated for CUE's conformance tests.
 */
export type { Inspected } from './inspect';
export { inspectFiles } from './inspect';
export { compileNative, evaluateNative, type NativeCompile, type NativeOptions, type NativeProgram, type NativeVerdict } from './policy';
