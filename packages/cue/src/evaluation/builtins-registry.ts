import type { Package, Value } from './values';

/**
 * What the builtins (pkg/) give the evaluator and the compiler, registered instead of imported, as
 * CUE's own pkg/ reaches its evaluator through a registry: so the evaluation imports no builtin
 * and no compiler. The predeclared identifiers (spec.md, "Predeclared identifiers"), the packages
 * a script may import, and the paths of CUE's standard library the native evaluator lacks (a
 * script importing one goes to the reference evaluator).
 */
export interface Builtins {
  readonly predeclared: ReadonlyMap<string, Value>;
  readonly packages: ReadonlyMap<string, Package>;
  readonly standardLibrary: ReadonlySet<string>;
}

let registered: Builtins | undefined;

/** pkg/packages.ts registerStandardLibrary, when the package's entry points load. */
export function registerBuiltins(builtins: Builtins): void {
  registered = builtins;
}

export function builtins(): Builtins {
  if (!registered) throw new Error('the builtins of the native CUE evaluator are not registered (pkg/packages.ts registerStandardLibrary)');
  return registered;
}
