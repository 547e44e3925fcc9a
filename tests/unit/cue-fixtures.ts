/** Policies and descriptors shared by the tests of the CUE engine's two runners. */
import path from 'node:path';

import type { EngineEntity, EngineResource } from '#lib/governance/engines/engine';

export const FAKE_CUE = path.resolve('tests/fakes/cue-cli.mjs');

let entityCount = 0;
export function entity(cueScript: string, options: Partial<EngineEntity> = {}): EngineEntity {
  return { id: `p${++entityCount}`, version: 1, kind: 'policy', engine: 'cue', cueScript, requireConcrete: true, remoteEngineUrl: null, ...options };
}

export function resource(id: string, descriptor: unknown): EngineResource {
  return { id, resourceType: 'dataproduct', descriptor, content: JSON.stringify(descriptor) };
}

export const PASS = { satisfiesPolicy: true, isError: false, errors: [] };
export const violation = (...errors: string[]) => ({ satisfiesPolicy: false, isError: false, errors });

export const PRODUCT_POLICY = `package governance

import "strings"

name:    string & strings.MinRunes(2)
version: =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$"
owner: email: =~"@"
`;

/** Five resources: the second breaks one rule, the third lacks a field, the fourth breaks two rules and lacks one. */
export const MIXED = [
  resource('ok-1', { name: 'cashflow', version: '1.0.0', owner: { email: 'a@b.c' }, extra: [1, 2] }),
  resource('bad-version', { name: 'sales', version: 'v1', owner: { email: 'a@b.c' } }),
  resource('no-owner', { name: 'hr', version: '0.1.0' }),
  resource('two-conflicts', { name: 'x', version: 1, owner: {} }),
  resource('ok-2', { name: 'marketing', version: '2.3.4', owner: { email: 'm@b.c' } }),
];

/** What `cue vet -c policy.cue <resource>.json` reports for each: next to conflicts, a missing field goes unmentioned. */
export const MIXED_EXPECTED = [
  PASS,
  violation('version: invalid value "v1" (out of bound =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$"):\n    policy.cue:6:10'),
  violation('owner.email: incomplete value =~"@":\n    policy.cue:7:15'),
  violation(
    'version: conflicting values 1 and =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$" (mismatched types int and string):\n    policy.cue:6:10',
    'name: invalid value "x" (does not satisfy strings.MinRunes(2)):\n    policy.cue:5:19\n    policy.cue:5:36',
  ),
  PASS,
];
