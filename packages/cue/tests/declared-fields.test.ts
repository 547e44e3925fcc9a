import { declaredFields } from '@cgp/cue/syntax';
import { describe, expect, it } from 'vitest';

// The descriptor fields a CUE policy declares (the MCP server's get_descriptor_specification), read from its syntax.

describe('declaredFields', () => {
  it('reads nested structs, required and optional markers, lists, patterns, comprehensions and the definitions a field names', () => {
    const script = [
      '#Port: {name!: string, next?: #Port}',
      'owner: email!: =~"@"',
      'ports?: [...#Port]',
      'tags: [string]: string',
      '"x-y": int & >0 | *1',
      'if true { extra: 1 }',
      '_hidden: 1',
      'let local = 1',
      '(computed): 1',
    ].join('\n');
    expect(declaredFields(script)).toEqual([
      { path: 'owner', constraint: 'regular' },
      { path: 'owner.email', constraint: 'required' },
      { path: 'ports', constraint: 'optional' },
      { path: 'ports[].name', constraint: 'required' },
      { path: 'ports[].next', constraint: 'optional' },
      { path: 'tags', constraint: 'regular' },
      { path: 'tags.*', constraint: 'regular' },
      { path: '"x-y"', constraint: 'regular' },
      { path: 'extra', constraint: 'regular' },
    ]);
  });

  it('declares nothing for a script that does not parse, and each path once', () => {
    expect(declaredFields('owner: {{{')).toEqual([]);
    expect(declaredFields('a: b: int\na: b: <10\na: {c?: string}')).toEqual([
      { path: 'a', constraint: 'regular' },
      { path: 'a.b', constraint: 'regular' },
      { path: 'a.c', constraint: 'optional' },
    ]);
  });

  it('stops a walk that definitions naming each other would fan out', () => {
    const chain = Array.from({ length: 40 }, (_, i) => `#D${i}: {a: #D${i + 1}, b: #D${i + 1}}`).join('\n');
    const fields = declaredFields(`${chain}\nroot: #D0\n`);
    expect(fields[0]).toEqual({ path: 'root', constraint: 'regular' });
    expect(fields.length).toBeLessThan(20_000);
  });
});
