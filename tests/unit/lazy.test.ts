import { describe, expect, it } from 'vitest';

import { lazily, lazilyPer } from '#lib/cache/lazy';

describe('lazily', () => {
  it('makes the value once, on first use, and keeps it', async () => {
    let made = 0;
    const value = lazily(async () => ++made);
    expect(made).toBe(0);
    expect(await Promise.all([value.get(), value.get()])).toEqual([1, 1]);
    expect(await value.get()).toBe(1);
  });

  it('forgets a making that failed, so the next use tries again', async () => {
    let attempt = 0;
    const value = lazily(async () => {
      attempt += 1;
      if (attempt === 1) throw new Error('database not up yet');
      return attempt;
    });
    await expect(value.get()).rejects.toThrow('database not up yet');
    expect(await value.get()).toBe(2);
  });

  it('reset answers the value it forgets, and the next use makes a new one', async () => {
    let made = 0;
    const value = lazily(async () => ++made);
    await value.get();
    expect(await value.reset()).toBe(1);
    expect(value.reset()).toBeUndefined();
    expect(await value.get()).toBe(2);
  });
});

describe('lazilyPer', () => {
  it('makes one value per key, on first use, and forgets a making that failed', async () => {
    let made = 0;
    const first = {};
    const second = {};
    const value = lazilyPer(async (key: object) => {
      made += 1;
      if (key === second && made === 2) throw new Error('no key ring yet');
      return made;
    });
    expect(await Promise.all([value(first), value(first)])).toEqual([1, 1]);
    await expect(value(second)).rejects.toThrow('no key ring yet');
    expect(await value(second)).toBe(3);
    expect(await value(first)).toBe(1);
  });
});
