import { describe, expect, it } from 'vitest';

import { cueErrorPath, cuePathLabels, locateCuePath } from '../../lib/governance/evaluation/descriptor-locator';

const yaml = ['name: sales', 'owner:', '  email: nope', 'components:', '  - kind: outputport', '  - kind: weird', '    "a.b": 1', ''].join('\n');

describe('locating a CUE error path in a descriptor', () => {
  it('reads the labels CUE prints, quoted ones holding dots', () => {
    expect(cuePathLabels('components.1."a.b"')).toEqual(['components', '1', 'a.b']);
    expect(cuePathLabels('owner.email')).toEqual(['owner', 'email']);
  });

  it('takes the path from a message only when it is one', () => {
    expect(cueErrorPath('owner.email: invalid value "nope"')).toBe('owner.email');
    expect(cueErrorPath('components.0."_links": field not allowed')).toBe('components.0."_links"');
    expect(cueErrorPath('the WebAssembly CUE engine could not start: boom')).toBeUndefined();
    expect(cueErrorPath('no colon here')).toBeUndefined();
  });

  it('finds fields and list items in YAML, at their key', () => {
    expect(locateCuePath(yaml, 'owner.email')).toEqual({ line: 3, column: 3, exact: true });
    expect(locateCuePath(yaml, 'components.1.kind')).toEqual({ line: 6, column: 5, exact: true });
    expect(locateCuePath(yaml, 'components.1."a.b"')).toEqual({ line: 7, column: 5, exact: true });
  });

  it('gives the parent of a missing field, line 1 when not even the first label is there', () => {
    expect(locateCuePath(yaml, 'owner.name')).toEqual({ line: 2, column: 1, exact: false });
    expect(locateCuePath(yaml, 'components.9.kind')).toEqual({ line: 4, column: 1, exact: false });
    expect(locateCuePath(yaml, 'version')).toEqual({ line: 1, column: 1, exact: false });
  });

  it('finds fields in JSON text', () => {
    const json = '{\n  "name": "c",\n  "owner": {"email": "c"},\n  "list": [1, {"x": 2}]\n}\n';
    expect(locateCuePath(json, 'owner.email')).toEqual({ line: 3, column: 13, exact: true });
    expect(locateCuePath(json, 'list.1.x')).toEqual({ line: 4, column: 16, exact: true });
  });

  it('falls back to line 1 on text that does not parse', () => {
    expect(locateCuePath('a: [\n', 'a')).toEqual({ line: 1, column: 1, exact: false });
  });
});
