import { describe, expect, it } from 'vitest';

import { LruMap } from '#lib/cache/lru-map';

describe('LruMap', () => {
  it('holds at most its capacity, dropping the least recently used', () => {
    const map = new LruMap<string, number>(3);
    for (let index = 0; index < 1000; index++) {
      map.set(`key-${index}`, index);
      expect(map.size).toBeLessThanOrEqual(3);
    }
    expect([map.get('key-996'), map.get('key-997'), map.get('key-998'), map.get('key-999')]).toEqual([undefined, 997, 998, 999]);
  });

  it('counts a read or a write as a use', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([1, undefined, 3]);
    map.set('a', 10);
    map.set('d', 4);
    expect([map.get('a'), map.get('c'), map.get('d')]).toEqual([10, undefined, 4]);
    expect(map.delete('a')).toBe(true);
    expect(map.size).toBe(1);
  });

  it('refuses a capacity below one', () => {
    expect(() => new LruMap(0)).toThrow(RangeError);
    expect(() => new LruMap(1.5)).toThrow(RangeError);
  });
});
