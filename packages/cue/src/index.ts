/**
 * The native CUE evaluator's public face (`@cgp/cue`): a policy compiled once, evaluated against
 * descriptors in process, and whole files evaluated for CUE's conformance tests; a whole file
 * compiled without a policy's save check; the bound on what one value may weigh. The other entry
 * points: `@cgp/cue/syntax`, `@cgp/cue/builtins`, `@cgp/cue/regexp` (package.json "exports").
 */
export { compileFile } from './compile/program';
export { MAX_OUTPUT } from './evaluation/context';
export type { Inspected } from './inspect';
export { inspectFiles } from './inspect';
export { compileNative, evaluateNative, type NativeCompile, type NativeOptions, type NativeProgram, type NativeVerdict } from './policy';
