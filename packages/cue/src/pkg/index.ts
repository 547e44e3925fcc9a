/** The builtins' public face (`@cgp/cue/builtins`): the predeclared identifiers and the packages, for the differentials that call each builtin. */
export type { Package, Value } from '../evaluation/values';
export { PACKAGES } from './packages';
export { universe } from './predeclared';
