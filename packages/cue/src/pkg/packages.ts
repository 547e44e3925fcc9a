import { registerBuiltins } from '../evaluation/builtins-registry';
import type { Package } from '../evaluation/values';
import { json } from './encoding-json';
import { yaml } from './encoding-yaml';
import { list } from './list';
import { math } from './math';
import { bits } from './math-bits';
import { net } from './net';
import { universe } from './predeclared';
import { regexp } from './regexp';
import { strconv } from './strconv';
import { strings } from './strings';
import { struct } from './struct';
import { time } from './time';

/** The packages the native evaluator has. */
export const PACKAGES: ReadonlyMap<string, Package> = new Map(
  [strings, list, math, bits, regexp, strconv, struct, time, net, json, yaml].map((entry) => [entry.path, entry]),
);

/** CUE's standard library: importing one of these that PACKAGES lacks sends a policy to the reference evaluator. */
const CUE_STANDARD_LIBRARY = new Set([
  'crypto/ed25519',
  'crypto/hmac',
  'crypto/md5',
  'crypto/sha1',
  'crypto/sha256',
  'crypto/sha512',
  'encoding/base64',
  'encoding/csv',
  'encoding/hex',
  'encoding/json',
  'encoding/toml',
  'encoding/yaml',
  'errors',
  'html',
  'list',
  'math',
  'math/bits',
  'net',
  'path',
  'regexp',
  'strconv',
  'strings',
  'struct',
  'text/tabwriter',
  'text/template',
  'time',
  'tool',
  'tool/cli',
  'tool/exec',
  'tool/file',
  'tool/http',
  'tool/os',
  'uuid',
]);

/** Gives the evaluator and the compiler the predeclared identifiers and these packages (evaluation/builtins-registry.ts); the entry points call it as they load. */
export function registerStandardLibrary(): void {
  registerBuiltins({ predeclared: universe, packages: PACKAGES, standardLibrary: CUE_STANDARD_LIBRARY });
}
