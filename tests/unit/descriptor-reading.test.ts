import { describe, expect, it } from 'vitest';

import { InvalidInput } from '#lib/errors/domain-errors';
import { parseDescriptor } from '#lib/governance/evaluation/descriptor';
import { YAML_LIMITS } from '#lib/governance/evaluation/descriptor-yaml';

/** The field errors of the InvalidInput error parsing `text` throws. */
function refusal(text: string): Array<{ path: string; message: string }> {
  try {
    parseDescriptor(text);
  } catch (error) {
    if (error instanceof InvalidInput) return error.errors;
    throw error;
  }
  throw new Error('expected the descriptor to be refused');
}

const manyKeys = (count: number) => Array.from({ length: count }, (_, index) => `key${index}: value`).join('\n');

describe('a descriptor written in YAML', () => {
  it('accepts a key repeated with an equal value, as CUE unifies repeated fields', () => {
    expect(parseDescriptor('id: dp-1\nownerGroup: finance\nname: Sales\nownerGroup: finance\n').value).toEqual({
      id: 'dp-1',
      ownerGroup: 'finance',
      name: 'Sales',
    });
    expect(parseDescriptor('owner: { name: a, team: [x, y] }\nowner:\n  name: a\n  team:\n    - x\n    - y\n').value).toEqual({
      owner: { name: 'a', team: ['x', 'y'] },
    });
  });

  it('refuses a key repeated with a different value, naming the key and both lines', () => {
    expect(refusal('id: dp-1\nownerGroup: finance\nname: Sales\nownerGroup: sales\n')).toEqual([
      { path: 'descriptor', message: 'repeats the key "ownerGroup" with different values, at lines 2 and 4' },
    ]);
    expect(refusal('id: dp-1\nowner:\n  name: a\n  team: x\n  name: b\n')).toEqual([
      { path: 'descriptor', message: 'repeats the key "owner.name" with different values, at lines 3 and 5' },
    ]);
  });

  it('reads many keys in linear time, up to the bound, and refuses more', () => {
    // The former repeated-key check was quadratic: 50,000 keys took ~40 s, past the test's time limit.
    expect(Object.keys(parseDescriptor(manyKeys(YAML_LIMITS.entries)).value)).toHaveLength(YAML_LIMITS.entries);
    expect(refusal(manyKeys(YAML_LIMITS.entries + 1))).toEqual([{ path: 'descriptor', message: `has more than ${YAML_LIMITS.entries} keys and list items` }]);
  });

  it('refuses nesting past the bound, block or flow, before composing it', () => {
    expect(refusal(`${'- '.repeat(400_000)}x`)).toEqual([{ path: 'descriptor', message: `nests deeper than ${YAML_LIMITS.depth} levels` }]);
    expect(refusal(`a: ${'['.repeat(300_000)}${']'.repeat(300_000)}`)).toEqual([
      { path: 'descriptor', message: `nests deeper than ${YAML_LIMITS.depth} levels` },
    ]);
    expect(refusal(Array.from({ length: YAML_LIMITS.depth + 2 }, (_, level) => `${' '.repeat(level)}k:`).join('\n'))).toEqual([
      { path: 'descriptor', message: `nests deeper than ${YAML_LIMITS.depth} levels` },
    ]);
    expect(parseDescriptor(`a: ${'['.repeat(YAML_LIMITS.depth - 1)}${']'.repeat(YAML_LIMITS.depth - 1)}`).value).toHaveProperty('a');
  });

  it('refuses circular aliases and alias bombs, naming the bound', () => {
    expect(refusal('a: &a [*a]\n')).toEqual([{ path: 'descriptor', message: 'the alias *a at line 1 is inside the node it refers to (a circular alias)' }]);
    expect(refusal('a: &a\n  b: *a\n')).toEqual([{ path: 'descriptor', message: 'the alias *a at line 2 is inside the node it refers to (a circular alias)' }]);
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...'bcdefg'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcdefg'[index]}`).join(', ')}]`),
    ].join('\n');
    expect(refusal(bomb)).toEqual([{ path: 'descriptor', message: `its YAML aliases expand to more than ${YAML_LIMITS.aliases} times the aliased content` }]);
    expect(
      refusal(
        Array.from({ length: YAML_LIMITS.aliases + 1 }, (_, index) => `k${index}: *a`)
          .join('\n')
          .replace(/^/, 'base: &a 1\n'),
      ),
    ).toEqual([{ path: 'descriptor', message: `has more than ${YAML_LIMITS.aliases} YAML aliases` }]);
    expect(parseDescriptor('base: &b { x: 1 }\ncopy: *b\n').value).toEqual({ base: { x: 1 }, copy: { x: 1 } });
  });

  it('refuses text the database cannot store, decoded from escapes, naming the field', () => {
    expect(refusal('id: dp-1\nname: "a\\0b"\n')).toEqual([{ path: 'descriptor.name', message: 'must not hold a NUL character (U+0000)' }]);
    expect(refusal('id: dp-1\nowner:\n  name: "\\ud800"\n')).toEqual([
      { path: 'descriptor.owner.name', message: 'must not hold an unpaired UTF-16 surrogate (not valid Unicode)' },
    ]);
    expect(refusal('{"id": "dp-1", "tags": ["ok", "\\u0000"]}')).toEqual([{ path: 'descriptor.tags.1', message: 'must not hold a NUL character (U+0000)' }]);
    expect(parseDescriptor('name: "\\ud83d\\ude00"\n').value).toEqual({ name: '😀' });
  });

  it('reads JSON strictly, says where JSON text is broken, and counts no bracket or escaped quote inside a string', () => {
    expect(parseDescriptor('{"id": "dp-1", "tags": ["a", {"b": null}], "size": 1.5}').value).toEqual({ id: 'dp-1', tags: ['a', { b: null }], size: 1.5 });
    expect(refusal('{"id": "dp-1",\n "owner": }')).toEqual([{ path: 'descriptor', message: 'not valid JSON at line 2, column 11: ValueExpected' }]);
    expect(refusal('{"id": "dp-1", "x": 1,}')).toEqual([{ path: 'descriptor', message: 'not valid JSON at line 1, column 23: PropertyNameExpected' }]);
    const nested = `{"note": "${'[{\\"'.repeat(150)}\\\\", "deep": ${'['.repeat(99)}${']'.repeat(99)}}`;
    expect(parseDescriptor(nested).value).toHaveProperty('deep');
    expect(refusal(nested.replace('"deep": [', '"deep": [['))).toEqual([{ path: 'descriptor', message: 'nests arrays and objects deeper than 100 levels' }]);
  });

  it('refuses several documents and JSON text nested past the bound', () => {
    expect(refusal('id: a\n---\nid: b\n')).toEqual([{ path: 'descriptor', message: 'must be one YAML document, found another at line 2' }]);
    expect(refusal(`{"a": ${'['.repeat(200_000)}`)).toEqual([{ path: 'descriptor', message: 'nests arrays and objects deeper than 100 levels' }]);
  });
});
