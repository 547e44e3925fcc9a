/**
 * The native evaluator's own contract (docs/cue-policies.md): what the save check refuses and what
 * it leaves to the descriptor, required fields, the evaluation budget, and what sends a policy to
 * the WebAssembly path. Its agreement with CUE is tests/unit/cue-native-differential.test.ts.
 */
import { compileNative, type Inspected, inspectFiles } from '@cgp/cue';
import { describe, expect, it } from 'vitest';

import { compiled, judgeNative, PASS, vet } from '../support/native-cue';

describe('the save check', () => {
  it('refuses what no descriptor can fix: syntax, unknown references and packages, constant conflicts, a script that is not a struct, an unread let', () => {
    expect(compileNative('a: {\n  b: 1\n')).toEqual({ ok: false, message: "expected '}', found 'EOF'", line: 3, column: 1 });
    expect(compileNative('name: string\n\nsize: limit + 1\n')).toEqual({ ok: false, message: 'size: reference "limit" not found', line: 3, column: 7 });
    expect(compileNative('package p\nimport "nope/nothing"\na: 1\n')).toEqual({ ok: false, message: 'package "nope/nothing" not found', line: 2, column: 8 });
    expect(compileNative('a: 1\na: 2\n')).toEqual({ ok: false, message: 'a: conflicting values 2 and 1', line: 2, column: 4 });
    expect(compileNative('_hidden: 1 & 2\n')).toMatchObject({ ok: false, message: '_hidden: conflicting values 2 and 1' });
    expect(compileNative('[1, 2]\n')).toMatchObject({ ok: false, message: expect.stringMatching(/^the script must be a struct/), line: 1 });
    expect(compileNative('"just a string"\n')).toMatchObject({ ok: false, message: expect.stringMatching(/^the script must be a struct/) });
    expect(compileNative('let n = 1\na: 2\n')).toEqual({ ok: false, message: 'unreferenced alias or let clause n', line: 1, column: 1 });
  });

  // Both passed every descriptor natively, where CUE fails the script whatever the data.
  it('refuses an import nothing reads and a default mark that is not an operand of `|`, as CUE compiles them', () => {
    expect(compileNative('import "strings"\n\nname: string\n')).toEqual({ ok: false, message: 'imported and not used: "strings"', line: 1, column: 8 });
    expect(compileNative('import l "list"\n\nname: string\n')).toMatchObject({ ok: false, message: 'imported and not used: "list" as l' });
    expect(compileNative('import "strings"\n\nname: strings.ToUpper("a")\n')).toMatchObject({ ok: true });
    expect(compileNative('meta: _\n_c: meta.x & *"foo" | "bar"\n')).toMatchObject({ ok: false, message: '_c: preference mark not allowed at this position' });
    expect(compileNative('a: {b: *1}\n')).toMatchObject({ ok: false, message: 'a.b: preference mark not allowed at this position' });
    expect(compileNative('a: (*1) | 2\n')).toMatchObject({ ok: false, message: 'a: preference mark not allowed at this position' });
    for (const marked of ['a: *1 | 2\n', 'a: **1 | 2\n', 'a: (*1 | 2) | 3\n', 'a: [...*"x" | string]\n'])
      expect(compileNative(marked)).toMatchObject({ ok: true });
  });

  // A let reading itself was a cycle bottom natively, incomplete: without requireConcrete every descriptor passed.
  it('refuses a let that reaches itself through lets, as CUE compiles lets (cyclic references in let clause or alias)', () => {
    for (const script of ['meta: _\nlet v = meta.n & v\nout: v\n', 'let A = {c: B}\nlet B = A\nout: A\n'])
      expect(compileNative(script), script).toMatchObject({ ok: false, message: expect.stringMatching(/cyclic references in let clause or alias$/) });
    // Through a field it is a reference, not a cycle of lets; and a let read many times is checked once.
    for (const script of ['let v = x\nx: {a: v}\n', 'let A = {c: 1}\nlet B = A & A\nlet C = B & B\nout: C\n'])
      expect(compileNative(script), script).toMatchObject({ ok: true });
  });

  // CUE names only b; natively the added declaration closes on its own too, so a may be named first (stricter, never laxer).
  it('refuses a field added from outside to a definition nested in a referenced one, as CUE does (x.#foo: field b not allowed)', () => {
    expect(compileNative('#D: {#foo: {a: int}}\nx: #D\nx: #foo: b: 1\n')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^x\.#foo\.[ab]: field not allowed$/),
    });
    expect(compileNative('#D: {#foo: a: int}\na: #D & {#foo: b: int}\n')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^a\.#foo\.[ab]: field not allowed$/),
    });
    // Declarations of one definition field together say what it allows.
    expect(compileNative('#D: {#foo: a: int}\n#D: {#foo: b: int}\nx: #D & {#foo: {a: 1, b: 2}}\n')).toMatchObject({ ok: true });
  });

  it('does not refuse what only conflicts while the descriptor is absent', () => {
    // A list built from descriptor data, unified with a list of fixed length: empty without data.
    const fixed = 'components: [...]\nnames: [for c in components {c.name}] & [_, _]\n';
    expect(compileNative(fixed)).toMatchObject({ ok: true });
    expect(vet(fixed, { components: [{ name: 'a' }, { name: 'b' }] })).toEqual(PASS);
    expect(vet(fixed, { components: [{ name: 'a' }] })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^names: incompatible list lengths \(1 and 2\)/)],
    });
    // A validator of an open list is not final before data fills it.
    expect(compileNative('import "list"\ntags: [...string] & list.MinItems(1)\n')).toMatchObject({ ok: true });
    // A hidden field that reads the descriptor.
    const hidden = 'components: [...]\n_count: len(components) & <3\n';
    expect(compileNative(hidden)).toMatchObject({ ok: true });
    expect(vet(hidden, { components: [1, 2, 3] })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^_count: invalid value 3 \(out of bound <3\)/)],
    });
  });

  it('sends to the WebAssembly path what the native evaluator does not do, saying what', () => {
    expect(compileNative('import "crypto/sha256"\na: 1\n')).toEqual({ ok: false, unsupported: 'the package "crypto/sha256" is not in the native evaluator' });
    expect(compileNative('import "strings"\na: strings.ToValidUTF8("abc", "")\n')).toEqual({
      ok: false,
      unsupported: 'strings.ToValidUTF8 is not in the native evaluator',
    });
    // Regexps are RE2 here too (tests/unit/cue-native-regexps.test.ts): only one nested deeper than re2js reads goes there.
    expect(compileNative(`a: =~"${'('.repeat(1001)}a${')'.repeat(1001)}"\n`)).toMatchObject({
      ok: false,
      unsupported: expect.stringMatching(/expression nests too deeply/),
    });
    expect(compileNative('@experiment(aliasv2)\na: 1\n')).toEqual({ ok: false, unsupported: 'the script turns on a CUE experiment' });
  });
});

describe('the verdict', () => {
  it('reports a missing required field in both modes, and a missing regular one only under requireConcrete', () => {
    const script = 'name!: string\nowner: string\ndescription?: string\n';
    expect(vet(script, { owner: 'o' })).toEqual({ satisfiesPolicy: false, isError: false, errors: ['name: field is required but not present'] });
    expect(vet(script, { owner: 'o' }, false)).toEqual({ satisfiesPolicy: false, isError: false, errors: ['name: field is required but not present'] });
    expect(vet(script, { name: 'n' })).toEqual({ satisfiesPolicy: false, isError: false, errors: ['owner: incomplete value string'] });
    expect(vet(script, { name: 'n' }, false)).toEqual(PASS);
    expect(vet(script, { name: 'n', owner: 'o' })).toEqual(PASS);
  });

  it("reads a descriptor's `_x` and `#x` keys as the regular fields they are in CUE, apart from hidden fields and definitions", () => {
    expect(vet('#C: {name: string}\ncomponents: [...#C]\n', { components: [{ name: 'a', _links: 1 }] })).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['components.0."_links": field not allowed'],
    });
    expect(vet('close({name: string})\n', { name: 'a', '#meta': 1 }, false)).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['"#meta": field not allowed'],
    });
    expect(vet('"_id"!: string\n', {}, false)).toEqual({ satisfiesPolicy: false, isError: false, errors: ['"_id": field is required but not present'] });
    expect(vet('"_id": string\n', { _id: 5 }, false)).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^"_id": conflicting values/)] });
    // The hidden field _secret and the descriptor's "_secret" are two fields.
    expect(vet('name: string\n_secret: "x"\n', { name: 'a', _secret: 'y' })).toEqual(PASS);
    // A string index names the regular field: meta["_x"] is the descriptor's "_x" (it was read as the hidden _x, undefined, so ignored).
    const indexed = 'meta: _\n_v: meta["_x"]\n_v: "foo"\n';
    for (const requireConcrete of [true, false]) {
      expect(vet(indexed, { meta: { _x: 'bar' } }, requireConcrete)).toMatchObject({
        satisfiesPolicy: false,
        errors: [expect.stringMatching(/^_v: conflicting values/)],
      });
      expect(vet(indexed, { meta: { _x: 'foo' } }, requireConcrete)).toEqual(PASS);
    }
    expect(vet('meta: {"#k": "bar"}\nv: meta["#k"] & "bar"\n', {})).toEqual(PASS);
  });

  it('checks a hidden field or definition that reads a field declared as `_`, which the save check cannot settle', () => {
    const reads = ['meta: _\n_v: meta.x & "foo"\n', 'meta: _\n_v: meta.x\n_v: "foo"\n', 'meta: _\n#v: meta.x & "foo"\n', 'meta: _\n_v: meta["x"] & "foo"\n'];
    // Ranging over it: the save check saw nothing to range over, an incomplete comprehension.
    const ranges = ['meta: _\n_v: {for k, v in meta {(k): v & "foo"}}\n', 'meta: _\n#v: [for v in meta {v}] & [..."foo"]\n'];
    for (const script of [...reads, ...ranges]) {
      for (const requireConcrete of [true, false]) {
        expect(vet(script, { meta: { x: 'bar' } }, requireConcrete), script).toMatchObject({
          satisfiesPolicy: false,
          errors: [expect.stringMatching(/conflicting values/)],
        });
        expect(vet(script, { meta: { x: 'foo' } }, requireConcrete), script).toEqual(PASS);
      }
    }
  });

  // The fields of a descriptor's object no rule names become vertices only when reached: each way of reaching them still checks them.
  it('a hidden field counting the keys of a closed struct that a pattern or an optional field still opens to the descriptor is evaluated per descriptor', () => {
    const fail = (path: string, count: number) => ({
      satisfiesPolicy: false,
      isError: false,
      errors: [expect.stringMatching(new RegExp(`^${path}: invalid value ${count} \\(out of bound <=1\\)`))],
    });
    const counting = (labels: string) => `#Product: {name: string, labels: ${labels}}\n#Product\nlabels: _\n_tooMany: len([for k, _ in labels {k}]) & <=1\n`;
    // The differential's case: `[string]: string` in a definition still admits every key of the descriptor.
    for (const requireConcrete of [true, false]) {
      expect(vet(counting('{[string]: string}'), { name: 'p', labels: { a: 'x', b: 'y', c: 'z' } }, requireConcrete)).toEqual(fail('_tooMany', 3));
      expect(vet(counting('{[string]: string}'), { name: 'p', labels: { a: 'x' } }, requireConcrete)).toEqual(PASS);
      // A pattern on some keys only, optional fields, an open list: the same.
      expect(vet(counting('{[=~"^x"]: string}'), { name: 'p', labels: { xa: 'x', xb: 'y' } }, requireConcrete)).toEqual(fail('_tooMany', 2));
      expect(vet(counting('{a?: string, b?: string}'), { name: 'p', labels: { a: 'x', b: 'y' } }, requireConcrete)).toEqual(fail('_tooMany', 2));
      expect(vet(counting('[...string]').replace('for k, _ in', 'for _, k in'), { name: 'p', labels: ['a', 'b'] }, requireConcrete)).toEqual(
        fail('_tooMany', 2),
      );
    }
    // The other side of the boundary: a closed struct that admits nothing more is final without a descriptor, and settled.
    const fixed = compileNative(counting('{a: "x", b: "y"}'));
    expect(fixed).toMatchObject({ ok: false, message: expect.stringMatching(/^_tooMany: invalid value 2 \(out of bound <=1\)/) });
    const settled = compileNative('#P: {tags: {a: "x"}}\n#P\ntags: _\n_n: len(tags) & <=1\n');
    expect(settled.ok && [...settled.program.settled]).toEqual(['#P', '_n']);
  });

  // It was settled: reading a field a validator left incomplete without data counted no read of the descriptor's space (npm run cue:fuzz, seed 29).
  it('evaluates per descriptor a hidden field reading a field of the descriptor that a validator leaves open', () => {
    const script = 'import "list"\n\nname: [...[...int]] & list.UniqueItems()\n_c0: list.Sum(name) & <=0\n';
    for (const requireConcrete of [true, false])
      expect(vet(script, { name: [[0]] }, requireConcrete)).toMatchObject({
        satisfiesPolicy: false,
        errors: [expect.stringMatching(/^_c0: invalid list element 0/)],
      });
    expect(vet(script, { name: [] })).toEqual(PASS);
  });

  it('adds the expression of a let whose value is incomplete where it is read, so that its other conjuncts still conflict', () => {
    for (const script of ['meta: _\nlet v = meta.n & int\nout: v\n', 'meta: _\nlet v = meta.n & {...}\nlet w = v\nout: w\n']) {
      expect(vet(script, { meta: {}, out: 'foo' }, false), script).toMatchObject({
        satisfiesPolicy: false,
        errors: [expect.stringMatching(/^out: conflicting values "foo" and/)],
      });
      expect(vet(script, { meta: {} }, false), script).toEqual(PASS);
    }
    expect(vet('meta: _\nlet v = meta.n & int\nout: v\n', { meta: { n: 2 }, out: 2 }, false)).toEqual(PASS);
  });

  it("checks a descriptor's fields no rule names when a reference, a pattern, a closed definition or a comprehension reaches them", () => {
    const meta = { z: 'last', n: 2, a: 'ok', b: 'NO' };
    expect(vet('meta: _\ncheck: meta.n & >3\n', { meta })).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['check: invalid value 2 (out of bound >3):\n    policy.cue:2:17'],
    });
    expect(vet('meta: [=~"^[ab]"]: =~"^[a-z]+$"\n', { meta })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^meta\.b: invalid value "NO"/)],
    });
    expect(vet('#N: {n: int}\nmeta: _\nother: #N\n', { meta, other: { n: 1, m: 2 } })).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['other.m: field not allowed'],
    });
    expect(vet('meta: {n: int}\nnames: [for k, _ in meta {k}] & [_, _, _, _]\n', { meta })).toEqual(PASS);
    expect(vet('meta: {n: int}\nnames: [for k, _ in meta {k}] & [_, _, _]\n', { meta })).toMatchObject({ satisfiesPolicy: false });
  });

  it('checks a hidden field that reads an optional field the descriptor gives, and reads numbers from 1e21 up as CUE reads their JSON, floats', () => {
    const script = '_nameLen: len(name) & <64\nname?: string\n';
    expect(vet(script, { name: 'x'.repeat(70) }, false)).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^_nameLen: invalid value 70 \(out of bound <64\)/)],
    });
    expect(vet(script, { name: 'x' })).toEqual(PASS);
    expect(vet('n?: int\n', { n: 1e21 })).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^n: conflicting values 1E\+21 and int/)] });
    expect(vet('n?: int\n', { n: 1e20 })).toEqual(PASS);
  });

  // CUE prints the list ["a"]; natively it is shown as it stands while the field is evaluated ([_,...]).
  it('gives a builtin reading its own field the list a descriptor put there, as CUE does, not a cycle that only conflicts could fail', () => {
    const script = 'import "strings"\nname: strings.ToLower(name)\n';
    expect(vet(script, { name: ['a'] }, false)).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^name: cannot use \[.*\] \(type list\) as string in argument 1 to strings.ToLower/)],
    });
    expect(vet(script, { name: 'abc' })).toEqual(PASS);
    expect(vet(script, { name: 'Abc' })).toMatchObject({ satisfiesPolicy: false });
  });

  it('computes in decimal, as CUE does: 0.1 + 0.2 is 0.3', () => {
    const bounded = 'a: number\nb: number\n_s: a + b\n_s: >0.3\n';
    expect(vet(bounded, { a: 0.1, b: 0.2 })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^_s: invalid value 0.3 \(out of bound >0.3\)/)],
    });
    expect(vet('a: number\nb: number\n_s: (a + b) & 0.3\n', { a: 0.1, b: 0.2 })).toEqual(PASS);
    expect(vet('import "list"\nshares: [...number]\n_t: list.Sum(shares) & <=1\n', { shares: [0.7, 0.2, 0.1] })).toEqual(PASS);
    expect(vet('a: number\nok: a / 0.1 == 3\nok: true\n', { a: 0.3 })).toEqual(PASS);
  });

  it('closes definitions, keeps their `...` open, and reports a field not allowed where it is', () => {
    const script = '#Port: {name: string, ...}\n#Product: {name: string, ports: [...#Port]}\n#Product\n';
    expect(vet(script, { name: 'p', ports: [{ name: 'a', extra: 1 }] })).toEqual(PASS);
    expect(vet(script, { name: 'p', ports: [], owner: 'x' })).toEqual({ satisfiesPolicy: false, isError: false, errors: ['owner: field not allowed'] });
  });

  it('lets a struct that embeds a struct embedding a definition keep its own fields, and still closes it', () => {
    // CUE's splitStruct: an embedded struct is no new scope, so {#deps} closes with the file, which declares root.input.
    const script = 'root: input: string\n{#deps}\n#deps: root: {}\n';
    expect(vet(script, { root: { input: 'a' } })).toEqual(PASS);
    expect(vet(script, { root: { input: 'a' }, x: 1 })).toEqual({ satisfiesPolicy: false, isError: false, errors: ['x: field not allowed'] });
  });

  it('lets a closed struct allow the regular field its quoted label `"_x"` declares, and not the hidden `_x`', () => {
    expect(vet('meta: close({"_x"?: string})\n', { meta: { _x: 'a' } })).toEqual(PASS);
    expect(vet('#M: {"#k"?: int}\nmeta: #M\n', { meta: { '#k': 1 } })).toEqual(PASS);
    expect(compileNative('meta: close({"_x": "a", _x?: _})\n')).toMatchObject({ ok: true });
    expect(vet('meta: close({_x?: string})\n', { meta: { _x: 'a' } })).toMatchObject({ satisfiesPolicy: false, errors: ['meta."_x": field not allowed'] });
    expect(vet('meta: close({[=~"^_"]: string})\n', { meta: { _x: 'a' } })).toEqual(PASS);
  });

  it('closes a close()d struct one level only, as CUE does', () => {
    const script = 'cfg: close({limits: {cpu: int}})\n';
    expect(vet(script, { cfg: { limits: { cpu: 1, memory: 2 } } })).toEqual(PASS);
    expect(vet(script, { cfg: { limits: { cpu: 1 }, other: 1 } })).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['cfg.other: field not allowed'],
    });
    expect(vet('x: close({a: 1}).b\n', {}, false)).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/undefined field: b/)] });
  });

  it('lets a struct embedding a definition keep its own fields, whatever the definition is made of', () => {
    const closeScript = '#Schema\n#Schema: close({a: {b: int}})\nc: string\n';
    expect(vet(closeScript, { a: { b: 1 }, c: 'x' })).toEqual(PASS);
    expect(vet(closeScript, { a: { b: 1 }, c: 'x', d: 1 })).toEqual({ satisfiesPolicy: false, isError: false, errors: ['d: field not allowed'] });
    const conjunctionScript = '#A: {a: int}\n#C: #A & {b?: int}\n{#C, c: string}\n';
    expect(vet(conjunctionScript, { a: 1, c: 'x' })).toEqual(PASS);
    expect(vet(conjunctionScript, { a: 1, c: 'x', d: 1 })).toEqual({ satisfiesPolicy: false, isError: false, errors: ['d: field not allowed'] });
  });

  it("closes the sides of a list element's conjunction in a definition together, as a field's", () => {
    const script = '#F: {do: string, as: [...string]}\n#D: {#c: [#F & {as: ["go"]}]}\nd: #D\nout: d.#c[0].do\n';
    expect(vet(script, { out: 'f1' }, false)).toEqual(PASS);
    expect(compileNative('#F: {do: string}\n#D: {#c: [#F & {as: ["go"]}]}\n')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/field not allowed/),
    });
  });

  it("closes a struct element of a list in a definition together with the list's `...T`", () => {
    const script = '#V: {kind: *"d" | string, spec: int}\n#L: [...#V] & [{spec: 1}]\nitems: #L\n';
    expect(vet(script, { items: [{ spec: 1, kind: 'd' }] })).toEqual(PASS);
    expect(vet(script, { items: [{ spec: 1, zz: 2 }] })).toMatchObject({ satisfiesPolicy: false, errors: ['items.0.zz: field not allowed'] });
    expect(compileNative('#V: {spec: int}\n#L: [...null | #V] & [{spec: 1, zz: 2}]\n')).toMatchObject({ ok: false });
  });

  it('closes a field a definition declares by a computed label together with its other declarations, as a named one', () => {
    // It was closed on its own: `image` from the pattern was not allowed in `dev` (CUE's eval/merge.txtar).
    const script = '_default: "dev"\n#Envs: {[string]: {replicas: int, image?: string}}\n#Envs: {"\\(_default)": replicas: 1}\nenvs: #Envs\n';
    expect(vet(script, { envs: { dev: { replicas: 1, image: 'a' } } })).toEqual(PASS);
    expect(vet(script, { envs: { dev: { replicas: 1, x: 1 } } })).toMatchObject({ satisfiesPolicy: false, errors: ['envs.dev.x: field not allowed'] });
  });

  // The field was dropped: with the optional field missing, the pair passed under requireConcrete where CUE fails it.
  it('makes a struct incomplete while a computed label is not concrete, as CUE does', () => {
    const script = 'namespace?: string\nquotas: {(namespace): {cpu: int & <=8}}\n';
    expect(vet(script, { quotas: {} })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^quotas: key value of dynamic field must be concrete, found _\|_\(/)],
    });
    expect(vet(script, { quotas: {} }, false)).toEqual(PASS);
    expect(vet(script, { namespace: 'a', quotas: { a: { cpu: 9 } } }, false)).toMatchObject({ satisfiesPolicy: false });
    expect(vet('ns: string\nout: {(ns): 1}\n', {}, false)).toEqual(PASS);
    expect(compileNative('k: true\nx: {(k): 1}\n')).toMatchObject({ ok: false, message: 'x: invalid index k (invalid type bool)' });
    // A label another computed field makes waits for it.
    expect(vet('x: {(x.foo): "baz", (x.baz): "bar", baz: "foo"}\n', { x: { baz: 'foo', foo: 'bar', bar: 'baz' } })).toEqual(PASS);
  });

  // What the embedding adds to the embedded field was lost: t.e lacked g (CUE's eval/insertion.txtar).
  it('embeds what an embedded field of the same struct receives from the embedding, as CUE does', () => {
    const script = 't: {\n\te: {}\n\tc: d: e: f: 1\n\tc.d\n\tc: d: c: d: e: g: 1\n}\n';
    expect(vet(script, {})).toEqual(PASS);
    expect(vet(script, { t: { e: { f: 1, g: 2 } } })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^t\.e\.g: conflicting values/)],
    });
    expect(vet('a: b: {v: 1, a: w: 2}\nb: a: {x: 2, b: y: 5}\na\nb\n', { v: 1, w: 2, x: 2, y: 5, a: { w: 2 } })).toEqual(PASS);
    // Not through a disjunction: the disjunct it chose would be embedded again.
    expect(vet('ok: {y: 1 | {y: 1}, y}\n', {})).toEqual(PASS);
  });

  it('binds no identifier to a quoted label, as CUE does', () => {
    expect(compileNative('"a": 1\nb: a\n')).toMatchObject({ ok: false, message: 'b: reference "a" not found' });
    const script = 'import "list"\nas: [1]\nx: {"as": list.Concat([[0], as])}\n';
    expect(vet(script, { x: { as: [0, 1] } })).toEqual(PASS);
  });

  it('reports conflicts alone, as CUE does, and every non-concrete field under requireConcrete', () => {
    const script = 'name: string\nsize: int & <10\nowner: email: =~"@"\n';
    expect(vet(script, { name: 1, size: 30 })).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: [
        'name: conflicting values 1 and string (mismatched types int and string):\n    policy.cue:1:7',
        'size: invalid value 30 (out of bound <10):\n    policy.cue:2:13',
      ],
    });
    expect(vet(script, {})).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: [
        'name: incomplete value string',
        'owner.email: incomplete value =~"@":\n    policy.cue:3:15',
        'size: incomplete value <10 & int:\n    policy.cue:2:13',
      ],
    });
  });

  it('takes defaults, and leaves an enumeration without one incomplete', () => {
    expect(vet('env: *"dev" | "prod"\n', {})).toEqual(PASS);
    expect(vet('env: "dev" | "prod"\n', {})).toEqual({ satisfiesPolicy: false, isError: false, errors: ['env: incomplete value "dev" | "prod"'] });
    expect(vet('env: "dev" | "prod"\n', { env: 'qa' })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^env: 2 errors in empty disjunction/)],
    });
  });

  it('gives a metric its value', () => {
    const program = compiled('components: [...]\nvalue: len([for c in components if c.kind == "outputport" {c}])\n');
    expect(judgeNative(program, { components: [{ kind: 'outputport' }, { kind: 'workload' }] }, { requireConcrete: true, metric: true })).toEqual({
      ...PASS,
      value: 1,
    });
    expect(judgeNative(compiled('value: "many"\n'), {}, { requireConcrete: true, metric: true })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^value: conflicting values "many" and number/)],
    });
    // With a default, its default (as CUE exports it).
    const withDefault = compiled('score?: number\nvalue: *score | 0\n');
    expect(judgeNative(withDefault, { score: 0.5 }, { requireConcrete: true, metric: true })).toEqual({ ...PASS, value: 0.5 });
    expect(judgeNative(withDefault, {}, { requireConcrete: false, metric: true })).toEqual({ ...PASS, value: 0 });
  });

  it('unifies the lists builtins and slices return element by element', () => {
    const script = 'import "list"\n\ntags: [...string]\nsorted: list.Sort(tags, {x: _, y: _, less: x < y})\nsorted: ["a", "b"]\nfirst: tags[0:1] & ["b"]\n';
    expect(vet(script, { tags: ['b', 'a'] })).toEqual(PASS);
    expect(vet(script, { tags: ['a', 'b'] })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^first\.0: conflicting values "a" and "b"/)],
    });
    expect(vet('import "list"\n\nn: len(list.Repeat([0], 3)) & 3\n', {})).toEqual(PASS);
  });

  // CUE's and.txtar: and() keeps the definitions embedded with scalars, and their conflict is the field's error (AddChildError).
  it('fails a scalar whose embedded definitions conflict, written with & or with and(), and still reads it as that scalar', () => {
    const script = 'n: int\nx: and([{2, #x: n}, {2, #x: 2}])\ny: x + 1\nz: and([{"ab", #x: n}]) + "c"\n';
    expect(vet(script, { n: 2 })).toEqual(PASS);
    expect(vet(script, { n: 1 })).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^x\.#x: conflicting values/)] });
    expect(vet('n: int\nx: {2, #x: n} & {2, #x: 2}\n', { n: 1 })).toMatchObject({ satisfiesPolicy: false });
    expect(compileNative('x: and([{2, #x: 1}, {2, #x: 2}])\n')).toMatchObject({ ok: false, message: 'x.#x: conflicting values 2 and 1' });
    expect(
      vet('import "strings"\ns: strings.ToUpper(and([{"ab", #x: 1}])) & "AB"\nt: "\\(and([{"ab", #x: 1}]))" & "ab"\nl: len(and([{"ab", #x: 1}])) & 2\n', {}),
    ).toEqual(PASS);
  });

  it('reads an unresolved cycle through a field with a bound as that bound not concrete: incomplete, as CUE does', () => {
    const root = inspectFiles([{ name: 'in.cue', text: 'E: {\n\ta: c - b\n\tb: c - a\n\tc: a + b & >=5\n}\nx: y - 1\ny: x + 1\n' }]);
    expect(root).toMatchObject({
      fields: [
        { label: 'E', value: { fields: [{ value: { code: 'incomplete' } }, { value: { code: 'incomplete' } }, { value: { code: 'incomplete' } }] } },
        { label: 'x', value: { code: 'cycle' } },
        { label: 'y', value: { code: 'cycle' } },
      ],
    });
    // Resolved when one of them is concrete, a bound on the other notwithstanding.
    expect(vet('x: y + 100\nx: 200\ny: x - 100\ny: int\n', {})).toEqual(PASS);
  });

  it('resolves a cycle of fields by the value one of them has, and still checks every conjunct', () => {
    expect(vet('total: used + free\nused: total - free\nfree: 20\ntotal: 100\n', {})).toEqual(PASS);
    expect(vet('a: b - 100\nb: a + 100\nb: 200\n', { a: 100 })).toEqual(PASS);
    expect(vet('a: b - 100\nb: a + 50\nb: 200\n', {})).toMatchObject({ satisfiesPolicy: false });
    expect(vet('a: a + 1\na: 1\n', {})).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^a: conflicting values 2 and 1/)] });
  });

  // CUE makes an error below a struct its parent's value (AddChildError): selecting from the struct gives that error.
  it('fails a field selected from a struct written in place that has a conflict, as CUE does', () => {
    const script = 'n: int\nr: ({x: 1, y: 2} & {x: n}).y\n';
    expect(vet(script, { n: 3 }, false)).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^r: conflicting values 3 and 1/)] });
    expect(vet(script, { n: 1 })).toEqual(PASS);
    // An error in a hidden field of it is not the struct's (CUE's issue3688: _in is no #T there, out is still read).
    expect(vet('#T: string | {foo: int}\nin: _\nr: ({_in: #T & in, out: 2}).out\n', { in: { foo: 5, bar: 'x' } })).toEqual(PASS);
  });

  it("words a builtin's argument that is not concrete as CUE does", () => {
    const script = 'import "strings"\nname: string\nupper: strings.ToUpper(name)\n';
    expect(vet(script, {})).toMatchObject({
      satisfiesPolicy: false,
      errors: ['name: incomplete value string', expect.stringMatching(/^upper: error in call to strings.ToUpper: non-concrete value string/)],
    });
  });

  // It was an error: the script was refused when saved, where v0.4 accepts it and passes its pairs without requireConcrete.
  it('takes or() of an empty list for an incomplete value, as CUE does: a violation under requireConcrete only', () => {
    const script = 'tags: [...string]\na: or(tags)\n';
    expect(compileNative('a: or([])\na: "t"\n')).toMatchObject({ ok: true });
    expect(vet(script, { tags: [], a: 'x' })).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^a: empty list in call to or/)] });
    expect(vet(script, { tags: [], a: 'x' }, false)).toEqual(PASS);
    expect(vet(script, { tags: ['y'], a: 'x' }, false)).toMatchObject({ satisfiesPolicy: false });
  });

  it('names the operand of a bound that is not concrete as written, as CUE does', () => {
    expect(vet('s: string\nv: >s & "foo"\n', { s: 'a' })).toEqual(PASS);
    expect(vet('s: string\nv: >s & "foo"\n', {})).toMatchObject({
      errors: ['s: incomplete value string', expect.stringMatching(/^v: non-concrete value s for bound >/)],
    });
  });

  it('words a disjunction of scalars unified with a struct as the empty disjunction it is, as CUE does', () => {
    expect(compileNative('t: {a, a: a: 2 | 1}\n')).toMatchObject({
      ok: false,
      message: 't.a: 2 errors in empty disjunction: conflicting values 2 and {...} (mismatched types int and struct)',
    });
  });

  // A required definition was read as if it were there: `x: #R.a` passed where CUE finds x incomplete.
  it('reads a required definition or hidden field that is not there as missing, as any required field', () => {
    expect(vet('#R!: {a: 1}\nx: #R.a\n', {})).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^x: required field missing: #R/)] });
    expect(vet('s: {#D!: {a: 1}, _h!: 2}\nx: s.#D.a\ny: s._h\n', {})).toMatchObject({
      errors: [expect.stringMatching(/^x: required field missing: #D/), expect.stringMatching(/^y: required field missing: _h/)],
    });
    expect(vet('#R!: {a: 1}\n#R: {a: 1}\nx: #R.a\n', {})).toEqual(PASS);
    // Selecting from a field that is a required field not there finds nothing there (CUE's eval/required.txtar doNotEscalateError).
    const root = inspectFiles([{ name: 'in.cue', text: 'a: {in: _, out: in.self}\nb: {required!: _, pass: (a & {in: required}).out}\n' }]);
    expect(root).toMatchObject({
      fields: [{}, { label: 'b', value: { fields: [{}, { label: 'pass', value: { code: 'incomplete', message: 'undefined field: self' } }] } }],
    });
    // or() of a list not known yet fails the call, incomplete (CUE's eval/issue3672.txtar).
    expect(vet('#R!: [...int]\nx: or([for v in #R {v}])\n', {})).toMatchObject({
      errors: [expect.stringMatching(/^x: error in call to or: required field missing: #R/)],
    });
  });

  it('words an index that is not concrete yet as CUE does', () => {
    expect(vet('k: string\nm: {a: 1}\nx: m[k]\n', {})).toMatchObject({
      errors: ['k: incomplete value string', expect.stringMatching(/^x: invalid non-ground value string \(must be concrete string\)/)],
    });
  });

  it('stops a runaway policy at its budget with a failed result, never a pass', () => {
    const program = compiled('import "list"\nx: [for i in list.Range(0, 100000, 1) {i}]\nn: len(x)\n');
    expect(judgeNative(program, {}, { requireConcrete: true, metric: false, maxSteps: 10_000 })).toEqual({
      satisfiesPolicy: false,
      isError: true,
      errors: ['the evaluation took more than 10000 steps (cue-config.max-steps)'],
    });
  });

  it('takes a scalar for a struct literal whose only fields beside an embedded `_` are definitions, patterns or `...`', () => {
    const script = 'x: {[string]: int, #kind: string, ..., _}\nx: string\n';
    expect(vet(script, { x: 'a' })).toEqual(PASS);
    expect(vet(script, { x: 5 })).toMatchObject({ satisfiesPolicy: false });
    expect(vet(script, { x: { a: 1 } })).toMatchObject({ satisfiesPolicy: false });
  });

  it('checks two validators whose struct or list arguments differ, which their message text cannot tell apart', () => {
    expect(vet('x: matchN(1, [{a!: int}]) & matchN(1, [{b!: int}])\n', { x: { a: 1 } }, false)).toMatchObject({ satisfiesPolicy: false });
    expect(vet('x: matchN(1, [{a!: int}]) & matchN(1, [{b!: int}])\n', { x: { a: 1, b: 2 } }, false)).toEqual(PASS);
    const json = 'import "encoding/json"\n\nx: json.Validate({a: int}) & json.Validate({a: >1})\n';
    expect(vet(json, { x: '{"a": 1}' }, false)).toMatchObject({ satisfiesPolicy: false });
    expect(vet(json, { x: '{"a": 2}' }, false)).toEqual(PASS);
  });

  it('finds a descriptor that violates a validator non-compliant in both modes: its open structs and lists are final', () => {
    const violations: [string, unknown][] = [
      ['import "struct"\n\nx: struct.MinFields(1)\n', { x: {} }],
      ['import "list"\n\nx: list.MinItems(1)\n', { x: [] }],
      ['x: matchN(1, [{foo!: string}])\n', { x: { bar: 2 } }],
      ['x: matchIf({a!: _}, {b!: 5}, _)\n', { x: { a: 1 } }],
    ];
    for (const [script, descriptor] of violations) {
      for (const requireConcrete of [true, false])
        expect(vet(script, descriptor, requireConcrete)).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^x: invalid value/)] });
    }
    expect(vet('x: matchIf({a!: _}, {b!: 5}, _)\n', { x: { a: 1, b: 6 } }, false)).toMatchObject({
      errors: [expect.stringMatching(/does not satisfy matchIf\): conflicting values 5 and 6/)],
    });
  });

  it('refuses a structure that nests without end instead of overflowing the stack', () => {
    expect(compileNative('#L: {next: #L}\nl: #L\n')).toMatchObject({ ok: false, message: expect.stringMatching(/structural cycle/) });
    // Into a field that is no struct, the conflict is what CUE reports (eval/sharing.txtar shareCycle.t2).
    expect(compileNative('#X: int\nY: {x: #X & Y}\n')).toMatchObject({ ok: false, message: expect.stringMatching(/^Y\.x: conflicting values int and \{/) });
  });
});

describe('the conformance view (inspectFiles)', () => {
  const inspected = (text: string) => inspectFiles([{ name: 'in.cue', text }]);
  const fieldOf = (script: string, label: string): Inspected | undefined => {
    const root = inspected(script);
    return root.kind === 'struct' ? root.fields.find((field) => field.label === label)?.value : undefined;
  };

  // CUE's runner looks the fields up in such a struct and reads its error (internal/cuetxtar/astcmp.go).
  it('keeps the fields of a struct whose comprehension is incomplete or failed, beside its error', () => {
    const root = inspected('#T: {\n\tkind: "a" | "b"\n\tif kind == "a" {size: 1}\n}\n');
    expect(root).toMatchObject({
      kind: 'struct',
      fields: [{ label: '#T', value: { kind: 'struct', fields: [{ label: 'kind' }], error: { kind: 'bottom', code: 'incomplete' } } }],
    });
    // So are those of a struct whose comprehension failed (CUE's eval/issue2550.txtar); a conflict is the value alone.
    expect(inspected('bar: close({})\nif bar.missing == "x" {foo: 1}\n')).toMatchObject({
      fields: [{ label: 'bar', value: { kind: 'struct' } }],
      error: { kind: 'bottom', code: 'eval', message: expect.stringContaining('undefined field: missing') },
    });
    expect(inspected('a: {b: 1} & 5\n')).toMatchObject({ fields: [{ label: 'a', value: { kind: 'bottom', code: 'eval' } }] });
  });

  it('prints the schemas of matchN and matchIf as CUE does, not as `_`', () => {
    expect(fieldOf('x: matchN(1, [>10, {foo!: string, bar?: int, ...}])\n', 'x')).toMatchObject({
      kind: 'constraint',
      text: 'matchN(1, [>10, {foo!: string, bar?: int, ...}])',
    });
    expect(fieldOf('import "math"\n\nx: matchN(math.MultipleOf(2), [[{}], "all"])\n', 'x')).toMatchObject({
      text: 'matchN(math.MultipleOf(2), [[{}], "all"])',
    });
    expect(fieldOf('x: matchIf({a!: _}, {b!: 1}, _)\n', 'x')).toMatchObject({ text: 'matchIf({a!: _}, {b!: 1}, _)' });
    // CUE's matchn.txtar: a schema that holds itself is a structural cycle, `_|_`; one close()d keeps its close().
    const cyclic = '#O: f?: matchN(1, [string, #O])\nx?: matchN(1, [close({a?: int}), #O])\ny?: matchN(1, [#P, #P])\n#P: {p: #Q}\n#Q: q?: int\n';
    expect(fieldOf(cyclic, 'x')).toMatchObject({ text: 'matchN(1, [close({a?: int}), _|_])' });
    expect(fieldOf(cyclic, '#O')).toMatchObject({ fields: [{ label: 'f', value: { text: 'matchN(1, [string, _|_])' } }] });
    expect(fieldOf(cyclic, 'y')).toMatchObject({ text: 'matchN(1, [{p: {q?: int}}, {p: {q?: int}}])' });
  });

  // CUE's validators.txtar issue2098: the open list has no element 0 yet; an element it has stays the list's error (stricter than CUE's 1).
  it('indexes past the end of an open list a validator finds incomplete as out of range, still incomplete', () => {
    const script = 'import "list"\n\nl: [...] & list.MinItems(1)\nx: l[0]\nm: [1, ...] & list.MinItems(2)\ny: m[0]\n';
    expect(fieldOf(script, 'x')).toEqual({
      kind: 'bottom',
      code: 'incomplete',
      message: 'index out of range [0] with length 0',
      positions: [expect.anything()],
    });
    expect(fieldOf(script, 'y')).toMatchObject({ kind: 'bottom', code: 'incomplete', message: expect.stringContaining('does not satisfy list.MinItems(2)') });
    expect(vet(script, {})).toMatchObject({ satisfiesPolicy: false });
  });

  it('makes a validator that may still come to hold on an open struct or list incomplete, in a file alone', () => {
    const incomplete = { kind: 'bottom', code: 'incomplete' };
    expect(fieldOf('import "struct"\n\nx: struct.MinFields(1)\nx: {}\n', 'x')).toMatchObject({
      ...incomplete,
      message: expect.stringContaining('len(fields) < MinFields(1) (0 < 1)'),
    });
    expect(fieldOf('import "struct"\n\n#x: struct.MinFields(1)\n#x: {[string]: int}\n', '#x')).toMatchObject(incomplete);
    expect(fieldOf('import "list"\n\nx: list.MinItems(1)\nx: [...]\n', 'x')).toMatchObject(incomplete);
    // A struct with fields keeps them beside its incomplete error.
    expect(fieldOf('x: matchN(1, [{foo!: string}])\nx: bar: 2\n', 'x')).toMatchObject({
      kind: 'struct',
      error: { ...incomplete, message: expect.stringContaining('(does not satisfy matchN): 0 matched, expected 1') },
    });
    // Closed, or failing whatever is added: a conflict.
    expect(fieldOf('import "struct"\n\n#x: struct.MinFields(1)\n#x: {}\n', '#x')).toMatchObject({ kind: 'bottom', code: 'eval' });
    expect(fieldOf('import "list"\n\nx: list.MinItems(1)\nx: []\n', 'x')).toMatchObject({ kind: 'bottom', code: 'eval' });
    expect(fieldOf('x: matchN(1, [{foo!: string}])\nx: foo: 2\n', 'x')).toMatchObject({ kind: 'bottom', code: 'eval' });
  });

  it('makes no struct of `...` or a pattern constraint beside an embedding, as CUE keeps them beside the scalar', () => {
    expect(fieldOf('a: {string, #foo: "bar"} & {..., #foo: string, _}\n', 'a')).toMatchObject({
      kind: 'struct',
      embedded: { kind: 'constraint', text: 'string' },
      fields: [{ label: '#foo' }],
    });
    expect(fieldOf('a: {string, #foo: "bar"} & {[string]: int, #foo: string, _}\n', 'a')).toMatchObject({
      kind: 'struct',
      patterns: ['string'],
      embedded: { kind: 'constraint' },
    });
    expect(fieldOf('a: {_, [string]: _}\n', 'a')).toMatchObject({ kind: 'struct', patterns: ['string'], embedded: { kind: 'top' } });
    // A regular field still makes one.
    expect(fieldOf('a: string & {x: 1, _}\n', 'a')).toMatchObject({
      kind: 'bottom',
      code: 'eval',
      message: expect.stringContaining('mismatched types string and struct'),
    });
  });

  it('keeps disjuncts of or() apart that differ only in the definitions beside their scalar', () => {
    expect(fieldOf('a: or([{2, #x: 1}, {2, #x: 2}])\n', 'a')).toMatchObject({
      kind: 'disjunction',
      disjuncts: [
        { value: { embedded: { value: 2 }, fields: [{ label: '#x', value: { value: 1 } }] } },
        { value: { embedded: { value: 2 }, fields: [{ label: '#x', value: { value: 2 } }] } },
      ],
    });
    expect(fieldOf('a: or([{2, #x: 1}, {2, #x: 1}])\n', 'a')).toMatchObject({ kind: 'struct', embedded: { value: 2 } });
    expect(fieldOf('a: or([2, 1, 1, 2])\n', 'a')).toMatchObject({ kind: 'disjunction', disjuncts: [{ value: { value: 2 } }, { value: { value: 1 } }] });
  });

  it('calls a validator written bare as its builtin, and refuses to call one already called', () => {
    const script = 'import "encoding/json"\n\na: json.Valid\nb: a()\nc: a("[1]")\nd: a("[")\ne: b()\n';
    expect(fieldOf(script, 'b')).toMatchObject({ kind: 'constraint', text: 'json.Valid()' });
    expect(fieldOf(script, 'c')).toEqual({ kind: 'bool', value: true });
    expect(fieldOf(script, 'd')).toEqual({ kind: 'bool', value: false });
    expect(fieldOf(script, 'e')).toMatchObject({ kind: 'bottom', code: 'eval', message: expect.stringContaining('cannot call previously called validator') });
  });

  it('fails matchIf with the error of the schema it chose', () => {
    expect(fieldOf('x: matchIf({a!: >2}, {b!: 5}, {b!: 1})\nx: {a: 10, b: 6}\n', 'x')).toMatchObject({
      kind: 'bottom',
      code: 'eval',
      message: 'invalid value {a:10,b:6} (does not satisfy matchIf): conflicting values 5 and 6',
    });
    expect(fieldOf('x: matchIf({a!: >2}, {b!: 5}, {b!: 1})\nx: {a: 1, b: 2}\n', 'x')).toMatchObject({
      message: expect.stringContaining('conflicting values 1 and 2'),
    });
  });

  it("names a let's path as where its error arose, wherever it is read (CUE prints a.X: undefined field: u)", () => {
    expect(inspected('x: {}\na: {\n\tlet X = x.u\n\ts: X + 1\n}\n')).toMatchObject({
      fields: [{}, { label: 'a', value: { fields: [{ label: 's', value: { message: 'undefined field: u', origin: 'a.X' } }] } }],
    });
  });

  // CUE's runner asks Value.IsClosed of any value (cue/types.go): true where the vertex is closed recursively.
  it('marks a value closed where CUE closes its field recursively: in or through a definition, not in a close()d struct', () => {
    const script = '#A: {a: 1}\nx: 1\nw: #A.a\nz: close({a: 1})\nv: z.a\n';
    const closed = (label: string) => (fieldOf(script, label) as { closed?: boolean } | undefined)?.closed === true;
    expect(['x', 'w', 'v'].map(closed)).toEqual([false, true, false]);
    expect(fieldOf(script, '#A')).toMatchObject({ fields: [{ label: 'a', value: { kind: 'int', closed: true } }] });
  });
});

describe('disjunctions', () => {
  // CUE's Equal sees a struct as closed when it or a struct it is in has a definition's conjunct (ClosedRecursive).
  it('keeps once two disjuncts that are the same struct, one reached through a definition and one not', () => {
    expect(vet('#C: d: _ | {}\nc: #C\nc: d: {} | {}\n', {})).toEqual(PASS);
    // Open and closed by their own conjuncts, they stay two (CUE: {a: 1} | {a: 1}).
    expect(vet('c: {a: 1} | #b\n#b: {a: 1}\n', {})).toEqual({ satisfiesPolicy: false, isError: false, errors: ['c: incomplete value {a:1} | {a:1}'] });
  });

  // CUE's crossProduct evaluates a disjunction that is a term of another within each disjunct of the value so far (spec.md, "Default values").
  it('drops the defaults of a nested disjunction only where none of them survives, one disjunct at a time', () => {
    // "b" survives the marked term without its inner default: a default too, so there is none to choose.
    expect(vet('c: ("a" | "b") & (*(*"a" | string) | string)\n', {})).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['c: incomplete value *"a" | *"b"'],
    });
    expect(vet('c: ("a" | "b") & (*(*"a" | string) | string)\nc: "a"\n', {})).toEqual(PASS);
    // Written first, the nested disjunction keeps its default.
    expect(vet('d: (*(*"a" | string) | string) & ("a" | "b")\nd: "b"\n', {})).toEqual(PASS);
    expect(vet('d: (*(*"a" | string) | string) & ("a" | "b")\nok: d == "a"\nok: true\n', {})).toEqual(PASS);
    expect(vet('x: string & (*(*1 | "s") | "t")\nok: x == "s"\nok: true\n', {})).toEqual(PASS);
  });

  // CUE keeps the members of such a disjunction not-default (HasDefaults, no default), so later defaults do not revive.
  it('makes no default of a third marked disjunction once two have left none', () => {
    expect(vet('x: (int | *4) & (int | *1) & (int | *3)\n', {})).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: ['x: incomplete value int | 3 | 1 | 4'],
    });
    expect(vet('x: (int | *4) & (int | *3)\nx: 3\n', {})).toEqual(PASS);
    // A side whose defaults were all eliminated still counts as unmarked.
    expect(vet('x: (*42 | _) & (*43 | bool)\nok: x == 43\nok: true\n', {})).toEqual(PASS);
  });

  // CUE's getErrorAll (disjunct2.go) finds an incomplete field of the disjunct's own, not one deeper.
  it('eliminates a disjunct with an incomplete field of its own, the default included', () => {
    expect(vet('m: a: 2\nx: *{v: m.b} | 3\nok: x == 3\nok: true\n', {})).toEqual(PASS);
    const greeting = 'name?: string\ngreeting: *{text: "hi \\(name)"} | {text: "hello"}\nok: greeting.text == "hello"\nok: true\n';
    expect(vet(greeting, {})).toEqual(PASS);
    expect(vet(greeting, { name: 'bob' })).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/^ok: conflicting values/)] });
    // One level deeper, or after an optional field (where CUE's walk stops), the default stays, incomplete.
    expect(vet('m: a: 2\nx: *{a: {v: m.b}} | 3\n', {})).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: [expect.stringMatching(/^x\.a\.v: undefined field: b/)],
    });
    expect(vet('m: a: 2\nx: *{o?: int, v: m.b} | 3\n', {})).toEqual({
      satisfiesPolicy: false,
      isError: false,
      errors: [expect.stringMatching(/^x\.v: undefined field: b/)],
    });
  });

  // CUE shares #A.type with #T, where the #T inside a disjunct is an ancestor: a structural cycle that eliminates it.
  it('eliminates the disjuncts of a definition that nest it without end, also where a field is that definition', () => {
    const types = '#T: ["a", #T] | ["b", #T] | ["c", #T] | ["d", [...#T]]\n#A: type: #T\n';
    const run = (script: string) => judgeNative(compiled(types + script), {}, { requireConcrete: true, metric: false, maxSteps: 100_000 });
    expect(run('a: #A & {type: ["d", []]}\n')).toEqual(PASS);
    // Nesting that data ends is no cycle.
    expect(run('a: #A & {type: ["a", ["b", ["d", []]]]}\n')).toEqual(PASS);
    expect(compileNative(`${types}a: #A & {type: ["a", ["e", []]]}\n`)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^a\.type: \d+ errors in empty disjunction/),
    });
    // A field that is the definition is the definition's value: its own disjunct naming it is eliminated there too.
    expect(vet('#L: {v: *0 | int, next: #L | null}\nl: #L\nok: l.next == null\nok: true\n', {})).toEqual(PASS);
  });
});

describe('where the native evaluator said compliant and CUE did not (the differential of issue 34)', () => {
  it('knows no predeclared `list`, `struct` or `byte`, as CUE does not', () => {
    for (const name of ['list', 'struct', 'byte'])
      expect(compileNative(`x: ${name}\n`)).toEqual({ ok: false, message: `x: reference "${name}" not found`, line: 1, column: 4 });
    expect(compileNative('x: uint8\ny: rune\n')).toMatchObject({ ok: true });
  });

  it('refuses to compare a struct or list with a value of another kind, as CUE does; null compares with anything', () => {
    const script = 'name: {[string]: {name: int}}\n_c0: len([for k, v in name if v == "x" {k}]) & <=0\n';
    for (const requireConcrete of [true, false])
      expect(vet(script, { name: { a: { name: 0 } } }, requireConcrete)).toEqual({
        satisfiesPolicy: false,
        isError: false,
        errors: [expect.stringMatching(/^_c0: invalid operands \{name:0\} and "x" to '==' \(type struct and string\)/)],
      });
    expect(vet('a: {b: 1}\nx: a != [1]\n', {})).toMatchObject({ satisfiesPolicy: false, errors: [expect.stringMatching(/\(type struct and list\)/)] });
    expect(vet('a: {b: 1}\nx: a == null\nx: false\ny: [1] != null\ny: true\nz: a == {b: 1}\nz: true\n', {})).toEqual(PASS);
  });

  it('reads `<-` as one token, as CUE does: `x: <-1` is no bound', () => {
    expect(compileNative('x: <-1\n')).toMatchObject({ ok: false, message: "expected an expression, found '<-'", line: 1, column: 4 });
    expect(compileNative('x: < -1\n')).toMatchObject({ ok: true });
  });

  it('finds the conflicts inside the policy itself in loose mode too, instead of taking them for incomplete values', () => {
    for (const script of ['kind: close({team: <="m"})\nkind: kind.team\n', 'kind: kind.team\nkind: close({team: <="m"})\n'])
      for (const requireConcrete of [true, false])
        expect(vet(script, {}, requireConcrete)).toEqual({
          satisfiesPolicy: false,
          isError: false,
          errors: [expect.stringMatching(/^kind: conflicting values <="m" and \{\.\.\.\} \(mismatched types string and struct\)/)],
        });
    // len() of a value of no kind len takes is wrong whatever the descriptor gives.
    for (const requireConcrete of [true, false])
      expect(vet('x: int\ny: len(x)\n', {}, requireConcrete)).toMatchObject({
        satisfiesPolicy: false,
        errors: expect.arrayContaining([expect.stringMatching(/^y: cannot use int \(type int\) as \(string\|bytes\|list\|struct\) in argument 1 to len/)]),
      });
    expect(vet('x: int | string\ny: len(x)\n', {}, false)).toEqual(PASS);
  });
});

describe('a struct that embeds a definition is closed recursively, as in current CUE (issue 2241; not in v0.4)', () => {
  const policy = '#Meta: {owner: string}\nmeta: {#Meta, labels: team: string}\n';
  it('closes the fields the definition does not declare, and their structs', () => {
    expect(vet(policy, { meta: { owner: 'a', labels: { team: 'b' } } })).toEqual(PASS);
    expect(vet(policy, { meta: { owner: 'a', labels: { team: 'b', other: 'c' } } })).toMatchObject({
      satisfiesPolicy: false,
      errors: [expect.stringMatching(/^meta\.labels\.other: field not allowed/)],
    });
    expect(vet(policy, { meta: { owner: 'a', labels: { team: 'b' }, other: 1 } })).toMatchObject({ satisfiesPolicy: false });
  });

  it('leaves open a reference to such a field alone, a definition with `...`, and the fields a definition declares', () => {
    expect(vet(`${policy}x: meta.labels\n`, { meta: { owner: 'a', labels: { team: 'b' } }, x: { team: 'b', other: 1 } })).toEqual(PASS);
    expect(vet('#Meta: {owner: string, ...}\nmeta: {#Meta, labels: team: string}\n', { meta: { owner: 'a', labels: { team: 'b', other: 'c' } } })).toEqual(
      PASS,
    );
    expect(vet('#Meta: {labels?: {...}}\nmeta: {#Meta, labels: team: string}\n', { meta: { labels: { team: 'b', other: 'c' } } })).toEqual(PASS);
  });
});

describe('where the native evaluator refused what CUE accepts (the differential of issue 34)', () => {
  it('lets a definition with `...` referenced in a conjunction inside another definition open it, as CUE does; one without does not', () => {
    expect(vet('#A: {a: int, ...}\n#B: #A & {a: <10}\nb: #B & {a: 5, c: 1}\n', {})).toEqual(PASS);
    expect(vet('#A: {a: int, ...}\n#B: {x: #A & {a: <10}}\nb: #B & {x: {a: 5, c: 1}}\n', {})).toEqual(PASS);
    // Its nested structs stay closed, and two definitions conjoined close each on its own.
    expect(compileNative('#A: {a: int, ...}\n#B: #A & {a: <10, b: {d: 1}}\nb: #B & {a: 5, b: {d: 1, e: 2}}\n')).toMatchObject({
      ok: false,
      message: 'b.b.e: field not allowed',
    });
    expect(compileNative('#A: {a: int}\n#C: {a: <10, ...}\n#B: #A & #C\nb: #B & {a: 5, c: 1}\n')).toMatchObject({
      ok: false,
      message: 'b.c: field not allowed',
    });
  });
});
