import { describe, expect, it } from 'vitest';

import { parseCueMessages } from '#lib/governance/engines/cue/cue-messages';
import { policySource, scriptPosition, wrappedPolicy } from '#lib/governance/engines/cue/policy-source';

describe('policySource', () => {
  it('finds the declarations after the package clause and the imports', () => {
    const script = '// Owners\npackage governance\n\nimport "strings"\nimport (\n\tl "list" // lists\n)\n\nname: strings.MinRunes(2)\n';
    const source = policySource(script);
    expect(script.slice(source.bodyStart)).toBe('name: strings.MinRunes(2)\n');
    expect(source.packageClause && script.slice(source.packageClause.start, source.packageClause.end)).toBe('package governance');
    expect(source.selfContained).toBe(true);
  });

  it('reads fields named package or import as declarations', () => {
    expect(policySource('package: "x"\n').bodyStart).toBe(0);
    expect(policySource('import: "x"\n').bodyStart).toBe(0);
  });

  it.each([
    ['braces in strings', 'a: "}"\nb: \'{\'\n'],
    ['a multi-line string', 'a: """\n\t}}}\n\t"""\n'],
    ['a raw string', 'a: #"say "}" here"#\n'],
    ['an interpolation holding a struct', 'a: "\\({x: "}"}.x)"\n'],
    ['a comment', 'a: 1 // }\n'],
    ['definitions', '#A: {b: int}\na: #A\n'],
  ])('vouches for a script with %s', (_, script) => {
    expect(policySource(script).selfContained).toBe(true);
  });

  it.each([
    ['a closing brace too many', 'a: 1 }\nb: {\n'],
    ['an unclosed brace', 'a: {\n'],
    ['an unterminated string', 'a: "}\n'],
    ['crossed brackets', 'a: [1, 2)\n'],
  ])('does not vouch for a script with %s', (_, script) => {
    expect(policySource(script).selfContained).toBe(false);
  });
});

describe('the wrapped policy file', () => {
  const script = 'package p\nimport "strings"\nname: strings.MinRunes(2)\nsize: <10\n';
  const source = policySource(script);
  const wrapped = wrappedPolicy(source, 'cgp', '_Pabc_0');

  it('keeps every line of the script one line lower, under our package, with the declarations in a struct', () => {
    expect(wrapped).toBe('package cgp\n         \nimport "strings"\n_Pabc_0: {name: strings.MinRunes(2)\nsize: <10\n\n}\n');
  });

  it('maps positions back to the script', () => {
    expect(scriptPosition(source, '_Pabc_0', 5, 7)).toEqual({ line: 4, column: 7 });
    // On the first declaration's line, after the inserted `_Pabc_0: {`.
    expect(scriptPosition(source, '_Pabc_0', 4, 17)).toEqual({ line: 3, column: 7 });
    // Our closing brace: the end of the script.
    expect(scriptPosition(source, '_Pabc_0', 7, 1)).toEqual({ line: 5, column: 1 });
  });
});

describe('parseCueMessages', () => {
  it('reads headers and positions, and drops the colon that announces positions', () => {
    const stderr = 'a.b: conflicting values 1 and 2:\n    ../../tmp/cgp-cue-x/policy-0.cue:3:4\n    ./batch.cue:7:1\nc: incomplete value string\n';
    expect(parseCueMessages(stderr)).toEqual([
      {
        text: 'a.b: conflicting values 1 and 2',
        positions: [
          { file: 'policy-0.cue', line: 3, column: 4 },
          { file: 'batch.cue', line: 7, column: 1 },
        ],
      },
      { text: 'c: incomplete value string', positions: [] },
    ]);
  });
});
