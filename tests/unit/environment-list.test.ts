import { describe, expect, it } from 'vitest';

import { EnvironmentListError, readEnvironmentList } from '#lib/governance/environments/environment-fetch';
import { backoffDelay } from '#lib/platform/backoff';

describe("the platform's list of environments", () => {
  it.each([
    [[{ name: 'dev', id: 1 }], [{ name: 'dev', details: { name: 'dev', id: 1 } }]],
    [{ data: [{ name: 'qa' }] }, [{ name: 'qa', details: { name: 'qa' } }]],
    [{ environments: ['prod'] }, [{ name: 'prod', details: {} }]],
  ])('reads %j', (body, expected) => {
    expect(readEnvironmentList(body)).toEqual(expected);
  });

  it.each([{ data: 'x' }, [{ id: 1 }], null, 'dev'])('refuses %j', (body) => {
    expect(() => readEnvironmentList(body)).toThrow(EnvironmentListError);
  });
});

describe('backoff', () => {
  it('grows with each attempt whatever the jitter, up to the cap', () => {
    const lowest = () => 0;
    const highest = () => 0.999;
    for (let attempt = 1; attempt < 6; attempt++) {
      expect(backoffDelay(attempt + 1, 200, 100_000, lowest)).toBeGreaterThan(backoffDelay(attempt, 200, 100_000, highest));
    }
    expect(backoffDelay(20, 200, 10_000, highest)).toBeLessThanOrEqual(10_000);
  });
});
