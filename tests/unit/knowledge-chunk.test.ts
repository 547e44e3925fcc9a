import { describe, expect, it } from 'vitest';

import { chunksOf, guideSections } from '#lib/assistant/knowledge/knowledge-chunk';

describe('chunksOf', () => {
  it('keeps a short source whole, keyed by type, id, version and part', () => {
    const [chunk, ...rest] = chunksOf({ type: 'policy', id: 'p1', version: 3, title: 'Owner', content: 'Policy: Owner' });
    expect(rest).toEqual([]);
    expect(chunk).toEqual({
      key: 'policy:p1:3#0',
      source: { type: 'policy', id: 'p1', version: 3, title: 'Owner' },
      content: 'Policy: Owner',
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(chunksOf({ type: 'resource_type', id: 'dataproduct', title: 'Data product', content: 'x' })[0].key).toBe('resource_type:dataproduct#0');
  });

  it('splits a long source at line ends, each part at most 6000 characters, the text kept', () => {
    const lines = Array.from({ length: 400 }, (_, n) => `line ${n} ${'x'.repeat(40)}`);
    const long = `${'y'.repeat(7000)}\n${lines.join('\n')}`;
    const chunks = chunksOf({ type: 'guide', id: 'g', title: 'Guide', content: long });
    expect(chunks.map((chunk) => chunk.key)).toEqual(chunks.map((_, n) => `guide:g#${n}`));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.content.length <= 6000)).toBe(true);
    expect(chunks.map((chunk) => chunk.content).join('\n')).toBe(`${'y'.repeat(6000)}\n${'y'.repeat(1000)}\n${lines.join('\n')}`);
  });

  it('hashes title and text: a change of either changes the hash', () => {
    const hash = (title: string, content: string) => chunksOf({ type: 'policy', id: 'p', title, content })[0].contentHash;
    expect(hash('a', 'b')).toBe(hash('a', 'b'));
    expect(hash('a', 'b')).not.toBe(hash('a', 'c'));
    expect(hash('a', 'b')).not.toBe(hash('z', 'b'));
  });
});

describe('guideSections', () => {
  it('makes one source per ## section, ignoring headings inside code blocks, apart when headings repeat', () => {
    const guide = ['# Guide', 'Intro text.', '## First `one`', 'a', '```', '## not a heading', '```', '## First one', 'b', '## Empty'].join('\n');
    expect(guideSections(guide, 'G')).toEqual([
      { type: 'guide', id: 'introduction', title: 'G: Introduction', content: 'Intro text.' },
      { type: 'guide', id: 'first-one', title: 'G: First one', content: 'a\n```\n## not a heading\n```' },
      { type: 'guide', id: 'first-one-2', title: 'G: First one', content: 'b' },
    ]);
  });
});
