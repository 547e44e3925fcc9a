// The house's direction, checked by `npm run lint` (`depcruise`): a layer imports only from the layers
// below it (or its own), and no module imports itself back through others. docs/architecture.md
// draws the layers.

/** From the floor up: each entry is a layer, the paths (regular expressions) of its modules. */
const LAYERS = [
  ['model', ['^drizzle/schema/', '^lib/errors/', '^lib/cache/', '^lib/authorization/roles\\.ts$']],
  ['foundation', ['^lib/settings/', '^lib/logging/', '^lib/observability/']],
  ['plumbing', ['^lib/db/', '^lib/platform/', '^lib/queue/', '^lib/auth/', '^lib/outbox/', '^lib/llm/']],
  ['service frame', ['^lib/http/', '^lib/authorization/', '^lib/audit/', '^lib/service/', '^lib/console/']],
  ['governance', ['^lib/governance/']],
  ['assistant', ['^lib/assistant/']],
  ['surfaces', ['^lib/api/', '^lib/cli/', '^lib/mcp/', '^lib/retention/', '^lib/startup/']],
  ['entry points', ['^functions/', '^console/', '^scripts/', '^bench/', '^bin/', '^tests/']],
];

/** Governance inside, from the bottom up: the policies (model, storage, their service) first, the areas built on them above. */
const GOVERNANCE = [
  [
    'policies and storage',
    [
      '^lib/governance/context\\.ts$',
      '^lib/governance/policies/(entity|lifecycle|entity-repository|entity-reading|entity-service|cron-expression)\\.ts$',
      '^lib/governance/engines/',
      '^lib/governance/environments/',
      '^lib/governance/resource-types/',
    ],
  ],
  ['evaluation', ['^lib/governance/evaluation/', '^lib/governance/exceptions/', '^lib/governance/scheduling/']],
  [
    'built on policies',
    ['^lib/governance/compliance/', '^lib/governance/impact/', '^lib/governance/rollouts/', '^lib/governance/approvals/', '^lib/governance/evidence/'],
  ],
  ['composition', ['^lib/governance/(composition|governance-handler)\\.ts$']],
  ['policy routes', ['^lib/governance/policies/(endpoints|entity-handlers)\\.ts$']],
];

/**
 * Wired, not pulled: the process's settings and pool are read by the composition modules and the
 * entry points, which pass them down, and by the CUE engine's process resources (its worker
 * threads and compiled policies are made once per process).
 */
const PROCESS_GLOBALS = ['^lib/db/shared-database\\.ts$', '^lib/settings/shared-settings\\.ts$'];
const MAY_READ_PROCESS_GLOBALS = [
  '(^|/)composition\\.ts$',
  '^lib/db/shared-database\\.ts$',
  '^lib/governance/engines/cue/(cue-engine|reference-evaluator)\\.ts$',
  '^(functions|scripts|bench|bin|tests)/',
];

/**
 * The native CUE evaluator, a workspace package (packages/cue, `@cgp/cue`): it imports nothing of
 * the repository, and the repository imports it only by its name and through its entry points
 * (package.json "exports"). Its stages, from the bottom up (CUE's own Go packages have the same shape):
 * each imports only the stages below it. The builtins reach the evaluator and the compiler through
 * a registry (evaluation/builtins-registry.ts), so that neither imports them; the entry points
 * (policy.ts, inspect.ts, index.ts) put the stages together. Inside one stage the files may import
 * each other back (the evaluation is one mutually recursive unit, as a Go package is); a circle that
 * leaves its stage may not.
 */
const NATIVE_CUE = '^packages/cue/src/';
const NATIVE_CUE_STAGES = [
  ['internal', [`${NATIVE_CUE}internal/`]],
  ['syntax', [`${NATIVE_CUE}syntax/`]],
  ['evaluation', [`${NATIVE_CUE}evaluation/`]],
  ['export', [`${NATIVE_CUE}export/`]],
  ['builtins', [`${NATIVE_CUE}pkg/`]],
  ['compile', [`${NATIVE_CUE}compile/`]],
  ['entry points', [`${NATIVE_CUE}[^/]+$`]],
];

const any = (paths) => `(${paths.join('|')})`;

/** For each layer, a rule forbidding imports of the layers above it. */
function upwardRules(layers, prefix) {
  return layers.slice(0, -1).map(([name, paths], i) => ({
    name: `${prefix}: ${name} imports nothing above it`,
    severity: 'error',
    comment: `${name} is below ${layers
      .slice(i + 1)
      .map(([above]) => above)
      .join(', ')}`,
    from: { path: any(paths) },
    // pathNot: a module of this layer or one below, where a file sits in a folder of a higher layer (roles.ts).
    to: { path: any(layers.slice(i + 1).flatMap(([, above]) => above)), pathNot: any(layers.slice(0, i + 1).flatMap(([, below]) => below)) },
  }));
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module must not import itself back through others',
      from: { pathNot: `${NATIVE_CUE}[^/]+/` },
      to: { circular: true },
    },
    {
      name: 'native CUE: no circle between stages',
      severity: 'error',
      comment: "A stage's files may import each other back; a circle through another stage or an entry point is one the stages' order forbids",
      from: { path: `${NATIVE_CUE}([^/]+)/` },
      to: { circular: true, via: { pathNot: `${NATIVE_CUE}$1/` } },
    },
    ...upwardRules(LAYERS, 'layers'),
    ...upwardRules(GOVERNANCE, 'governance'),
    ...upwardRules(NATIVE_CUE_STAGES, 'native CUE'),
    {
      name: 'native CUE: a package of its own',
      severity: 'error',
      comment: 'packages/cue imports its own files, its npm dependencies and Node, nothing of the repository',
      from: { path: '^packages/cue/' },
      to: { pathNot: '^(packages/cue/|node_modules/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'native CUE: imported by its name, through its entry points',
      severity: 'error',
      comment: 'Outside packages/cue: `@cgp/cue`, `@cgp/cue/syntax`, `@cgp/cue/builtins` or `@cgp/cue/regexp`, never one of its files',
      from: { pathNot: '^packages/cue/' },
      to: { path: '^packages/cue/', pathNot: '^packages/cue/src/(index|syntax/index|pkg/index|regexp)\\.ts$' },
    },
    {
      name: 'native CUE: imported by its name, not by a path',
      severity: 'error',
      comment: 'An entry point reached by a relative path would break once the package is installed from elsewhere',
      from: { pathNot: '^packages/cue/' },
      to: { path: '^packages/cue/', dependencyTypesNot: ['aliased-workspace'] },
    },
    {
      name: 'native CUE: the compiler imports no builtin',
      severity: 'error',
      comment: 'The compiler finds the predeclared identifiers and the packages in the registry the builtins fill (evaluation/builtins-registry.ts)',
      from: { path: `${NATIVE_CUE}compile/` },
      to: { path: `${NATIVE_CUE}pkg/` },
    },
    {
      name: 'wired-not-pulled',
      severity: 'error',
      comment: 'Services receive their settings and pool (a context parameter); only composition modules and entry points read the process globals',
      from: { pathNot: any(MAY_READ_PROCESS_GLOBALS) },
      to: { path: any(PROCESS_GLOBALS) },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // tests/fixtures/layers breaks the rules on purpose (tests/unit/layers.test.ts).
    exclude: { path: '(^|/)node_modules/|\\.d\\.ts$|^tests/fixtures/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
    },
  },
};
