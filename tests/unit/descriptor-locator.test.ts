import { describe, expect, it } from 'vitest';

import { cueErrorPath, cuePathLabels, locateCuePath } from '#lib/governance/evaluation/descriptor-locator';

const yaml = ['name: sales', 'owner:', '  email: nope', 'components:', '  - kind: outputport', '  - kind: weird', '    "a.b": 1', ''].join('\n');

describe('locating a CUE error path in a descriptor', () => {
  it('reads the labels CUE prints, quoted ones holding dots', () => {
    expect(cuePathLabels('components.1."a.b"')).toEqual(['components', '1', 'a.b']);
    expect(cuePathLabels('owner.email')).toEqual(['owner', 'email']);
  });

  it('takes the path from a message only when it is one', () => {
    expect(cueErrorPath('owner.email: invalid value "nope"')).toBe('owner.email');
    expect(cueErrorPath('components.0."_links": field not allowed')).toBe('components.0."_links"');
    expect(cueErrorPath('the reference CUE evaluator could not start: boom')).toBeUndefined();
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

  it('finds the same places in JSON text as the YAML reader does in the same document written as YAML', () => {
    const json = JSON.stringify({ name: 'sales', owner: { email: 'nope' }, components: [{ kind: 'outputport' }, { kind: 'weird', 'a.b': 1 }] }, null, 2);
    const lines = json.split('\n');
    const lineOf = (needle: string) => lines.findIndex((line) => line.includes(needle)) + 1;
    expect(locateCuePath(json, 'owner.email')).toEqual({ line: lineOf('"email"'), column: 5, exact: true });
    expect(locateCuePath(json, 'components.1."a.b"')).toEqual({ line: lineOf('"a.b"'), column: 7, exact: true });
    expect(locateCuePath(json, 'components.1')).toEqual({ line: lineOf('"weird"') - 1, column: 5, exact: true });
    expect(locateCuePath(json, 'owner.name')).toEqual({ line: lineOf('"owner"'), column: 3, exact: false });
    expect(locateCuePath(json, 'version')).toEqual({ line: 1, column: 1, exact: false });
  });

  it('counts CRLF lines and the first of repeated keys in JSON text', () => {
    expect(locateCuePath('{\r\n  "a": 1,\r\n  "b": {"c": 2}\r\n}', 'b.c')).toEqual({ line: 3, column: 9, exact: true });
    expect(locateCuePath('{"a": 1,\n "a": 2}', 'a')).toEqual({ line: 1, column: 2, exact: true });
  });

  it('reads text that opens like JSON but is not strict JSON as YAML flow style', () => {
    expect(locateCuePath('{\n  a: 1,\n  b: {c: 2},\n}', 'b.c')).toEqual({ line: 3, column: 7, exact: true });
  });

  it('falls back to line 1 on text that does not parse', () => {
    expect(locateCuePath('a: [\n', 'a')).toEqual({ line: 1, column: 1, exact: false });
  });
});
