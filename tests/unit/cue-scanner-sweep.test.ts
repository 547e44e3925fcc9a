/**
 * The scanner under every character class CUE treats apart (a byte order mark, NUL, bidi controls,
 * lone surrogates, line and paragraph separators, non-characters, controls, blanks Go does not
 * count as blank), in every token position (string, escape, multi-line and raw string, bytes,
 * comment, identifier, label, number, attribute, between tokens), in a policy and in a descriptor:
 * each judged by CUE v0.4 through the platform's path and natively. The native verdict is CUE's,
 * and never an internal exception.
 */
import { compileNative, evaluateNative } from '@cgp/cue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createReferenceEvaluator, type CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';
import type { EngineResult } from '#lib/governance/engines/engine';

import { cuePolicy } from '../support/native-cue';

const CHARACTERS: Record<string, string> = {
  'byte order mark': '\ufeff',
  NUL: '\u0000',
  'right-to-left override': '\u202e',
  'left-to-right isolate': '\u2066',
  'right-to-left mark': '\u200f',
  'lone high surrogate': '\ud800',
  'lone low surrogate': '\udc00',
  'line separator': '\u2028',
  'paragraph separator': '\u2029',
  'non-character U+FFFE': '\ufffe',
  'non-character U+FFFF': '\uffff',
  'non-character U+FDD0': '\ufdd0',
  'non-character U+1FFFF': '\u{1ffff}',
  'replacement character': '\ufffd',
  DEL: '\u007f',
  'control U+0001': '\u0001',
  'next line U+0085': '\u0085',
  'no-break space': '\u00a0',
  'zero-width space': '\u200b',
  'vertical tab': '\v',
  'form feed': '\f',
  'carriage return': '\r',
  tab: '\t',
};

const escapeOf = (char: string) =>
  char.length === 2 ? `\\U${(char.codePointAt(0) as number).toString(16).padStart(8, '0')}` : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Each token position: the policy with the character in it. */
const POSITIONS: Record<string, (char: string) => string> = {
  string: (c) => `x: "a${c}b"\n`,
  'string escape': (c) => `x: "a${escapeOf(c)}b"\n`,
  'multi-line string': (c) => `x: """\n\ta${c}b\n\t"""\n`,
  'raw string': (c) => `x: #"a${c}b"#\n`,
  bytes: (c) => `x: 'a${c}b'\n`,
  'bytes escape': (c) => `x: 'a${escapeOf(c)}b'\n`,
  comment: (c) => `// a${c}b\nx: 1\n`,
  identifier: (c) => `a${c}b: 1\n`,
  label: (c) => `"a${c}b": 1\n`,
  number: (c) => `x: 1${c}2\n`,
  attribute: (c) => `x: 1 @a(${c})\n`,
  'between tokens': (c) => `x:${c} 1\n`,
  'line start': (c) => `${c}x: 1\n`,
  'line end': (c) => `x: 1${c}\n`,
};

/** Each descriptor position: the descriptor with the character in it, under an open policy. */
const DESCRIPTOR_POSITIONS: Record<string, (char: string) => unknown> = {
  'descriptor value': (c) => ({ x: `a${c}b` }),
  'descriptor key': (c) => ({ [`a${c}b`]: 1 }),
  'nested value': (c) => ({ y: [{ z: `${c}` }] }),
};
const OPEN_POLICY = 'x?: string\n...\n';

interface Case {
  readonly name: string;
  readonly script: string;
  readonly descriptor: unknown;
}

const CASES: Case[] = Object.entries(CHARACTERS).flatMap(([character, char]) => [
  ...Object.entries(POSITIONS).map(([position, write]) => ({ name: `${character} in ${position}`, script: write(char), descriptor: {} })),
  ...Object.entries(DESCRIPTOR_POSITIONS).map(([position, write]) => ({ name: `${character} in ${position}`, script: OPEN_POLICY, descriptor: write(char) })),
]);

/** The native verdict as the platform gets it; `fault` for an internal exception. */
function nativeVerdict({ script, descriptor }: Case): 'pass' | 'fail' | 'fault' {
  const compiled = compileNative(script);
  if (!compiled.ok) return compiled.unsupported !== undefined && compiled.fault ? 'fault' : 'fail';
  const verdict = evaluateNative(compiled.program, descriptor, { requireConcrete: true, metric: false });
  if (verdict.kind === 'failed' && verdict.fault) return 'fault';
  return verdict.kind === 'satisfied' ? 'pass' : 'fail';
}

describe('the scanner under every character class, as CUE v0.4 reads it', () => {
  let wasm: CueReferenceEvaluator;
  beforeAll(() => {
    wasm = createReferenceEvaluator({ timeout: 120_000, workers: 2, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 });
  });
  afterAll(() => wasm.close());

  it(`gives CUE's verdict in ${CASES.length} places, never passing what CUE refuses`, async () => {
    // Policies are judged against one descriptor each: one batch per descriptor shape.
    const cue = await Promise.all(
      CASES.map(async ({ name, script, descriptor }): Promise<EngineResult> => {
        const [[result]] = await wasm.evaluate(
          [cuePolicy(name, script)],
          [{ id: 'r', resourceType: 'sweep', descriptor, content: JSON.stringify(descriptor) }],
        );
        return result;
      }),
    );
    const verdicts = CASES.map((entry, index) => ({ name: entry.name, cue: cue[index].satisfiesPolicy ? 'pass' : 'fail', native: nativeVerdict(entry) }));
    expect(verdicts.filter((verdict) => verdict.native !== verdict.cue)).toEqual([]);
    // Both verdicts occur, or the sweep proves little.
    expect(new Set(verdicts.map((verdict) => verdict.cue))).toEqual(new Set(['pass', 'fail']));
  });
});
