/**
 * What only CUE itself can judge (a regular expression re2js cannot run, an IDNA label whose
 * Unicode tables differ): thrown while compiling, the policy goes to the reference evaluator; while
 * evaluating, that pair does (native-evaluator.ts). Never a pass the native evaluator guessed.
 */
export class BeyondNative extends Error {}
