import path from 'node:path';

/** CUE's own conformance files (../shared/cue-conformance beside the repository, read where they are, never copied); absent elsewhere. */
export const CONFORMANCE = path.resolve(import.meta.dirname, '../../../../../shared/cue-conformance/cue/testdata');

/** The folders of them this evaluator is held to. */
export const FOLDERS = [
  'basicrewrite',
  'scalars',
  'lists',
  'interpolation',
  'references',
  'resolve',
  'definitions',
  'disjunctions',
  'comprehensions',
  'builtins',
  'choosedefault',
  'fulleval',
  'eval',
];
