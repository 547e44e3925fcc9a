import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { CueSyntaxError, type Field, parseExpression, parseFile } from '@cgp/cue/syntax';
import { describe, expect, it } from 'vitest';

import { CONFORMANCE, FOLDERS } from './support/conformance-files';
import { cueInputsOf } from './support/txtar';

describe('the CUE parser', () => {
  it("reads a policy of today's CUE: required and optional fields, definitions, patterns, comprehensions", () => {
    const file = parseFile(`package policy

import "strings"

#Owner: { name!: string & =~"^[a-z]+$", email?: string }
owner!: #Owner
tags: [...string] & list.MinItems(1)
labels: [=~"^x-"]: string
let prefix = "urn:dp:"
id: strings.HasPrefix(prefix) | *"none"
for i, c in components if c.kind == "outputport" {
  "port-\\(i)": c.name
}
size?: >=0 & <10 @doc(size)
`);
    expect(file.packageName).toBe('policy');
    expect(file.imports).toEqual([{ path: 'strings', alias: undefined, at: expect.anything() }]);
    const fields = file.decls.filter((decl): decl is Field => decl.type === 'field');
    expect(fields.map((field) => [field.label.kind === 'name' ? field.label.name : field.label.kind, field.constraint ?? ''])).toEqual([
      ['#Owner', ''],
      ['owner', '!'],
      ['tags', ''],
      ['labels', ''],
      ['id', ''],
      ['size', '?'],
    ]);
    expect(fields[3].value).toMatchObject({ type: 'struct', decls: [{ type: 'field', label: { kind: 'pattern', expr: { type: 'unary', op: '=~' } } }] });
    expect(fields[4].value).toMatchObject({ type: 'binary', op: '|', right: { type: 'unary', op: '*' } });
    expect(fields[5].attributes).toEqual(['@doc(size)']);
    expect(file.decls.map((decl) => decl.type)).toEqual(['field', 'field', 'field', 'field', 'let', 'field', 'comprehension', 'field']);
  });

  it('binds operators as the specification says: | loosest, then &, ||, &&, comparisons, + -, * /', () => {
    expect(parseExpression('a | b & c || d && e == f + g * h')).toMatchObject({
      op: '|',
      right: { op: '&', right: { op: '||', right: { op: '&&', right: { op: '==', right: { op: '+', right: { op: '*' } } } } } },
    });
  });

  it('reads numbers, strings, bytes, multi-line and raw strings, and interpolations', () => {
    expect(parseExpression('1_000')).toMatchObject({ kind: 'int', value: '1_000' });
    expect(parseExpression('1.5Ki')).toMatchObject({ kind: 'int', value: '1.5Ki' });
    expect(parseExpression('.25')).toMatchObject({ kind: 'float', value: '.25' });
    expect(parseExpression('"a\\tb\\u00e9"')).toMatchObject({ kind: 'string', value: 'a\tbé' });
    expect(parseExpression("'\\x41'")).toMatchObject({ kind: 'bytes', value: 'A' });
    expect(parseExpression('#"a\\tb"#')).toMatchObject({ kind: 'string', value: 'a\\tb' });
    expect(parseExpression('"""\n    one\n      two\n    """')).toMatchObject({ kind: 'string', value: 'one\n  two' });
    expect(parseExpression('"x\\(a + "(\\(b))")y"')).toMatchObject({ type: 'interpolation', parts: ['x', { type: 'binary', op: '+' }, 'y'] });
  });

  it('refuses what is not CUE, with the line and column', () => {
    const failure = (source: string) => {
      try {
        parseFile(source);
      } catch (error) {
        if (error instanceof CueSyntaxError) return error.message;
        throw error;
      }
      throw new Error('expected a syntax error');
    };
    expect(failure('a: [1, 2\nb: 3\n')).toBe('a list element cannot be a field (line 2, column 1)');
    expect(failure('a: "open\n')).toBe('string literal not terminated (line 1, column 4)');
    expect(failure('a: 1 +\n')).toBe("expected an expression, found 'EOF' (line 2, column 1)");
  });
});

/** Experiments of newer CUE that policies do not use and the parser does not read (postfix aliases `a~X`, `try`/`else`, `#A...`): files using them may fail. */
const EXPERIMENTS = /@experiment\([^)]*\b(aliasv2|try|explicitopen)\b/;

describe.skipIf(!existsSync(CONFORMANCE))("the CUE parser on CUE's conformance files", () => {
  it('parses the input of every file of the folders policies need, but for experiments', () => {
    const failures: string[] = [];
    const counts: string[] = [];
    for (const folder of FOLDERS) {
      const archives = readdirSync(path.join(CONFORMANCE, folder)).filter((name) => name.endsWith('.txtar'));
      let parsed = 0;
      let experimental = 0;
      for (const name of archives) {
        const archive = readFileSync(path.join(CONFORMANCE, folder, name), 'utf8');
        try {
          for (const { text } of cueInputsOf(archive)) parseFile(text);
          parsed++;
        } catch (error) {
          if (EXPERIMENTS.test(archive)) experimental++;
          else failures.push(`${folder}/${name}: ${(error as Error).message}`);
        }
      }
      counts.push(`${folder} ${parsed}/${archives.length}${experimental ? ` (${experimental} experimental)` : ''}`);
    }
    console.log(`CUE conformance files parsed: ${counts.join(', ')}`);
    expect(failures).toEqual([]);
  });
});
