/** Regular expressions as CUE v0.4's Go reads them (RE2), the package's own (`@cgp/cue/regexp`): for the differentials against JavaScript's. */
export { Regexp, regexpOf } from './internal/re2';
