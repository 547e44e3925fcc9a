import { describe, expect, it } from 'vitest';

import { globProblem, likePattern } from '#lib/governance/exceptions/resource-glob';

describe('resource globs of exceptions', () => {
  it.each([
    ['urn:dp:sales', 'urn:dp:sales'],
    ['urn:dp:*', 'urn:dp:%'],
    ['urn:dp:sales-??', 'urn:dp:sales-__'],
    ['a%b_c', 'a\\%b\\_c'],
    ['literal\\*star\\?', 'literal*star?'],
    ['back\\\\slash', 'back\\\\slash'],
    ['\\%', '\\%'],
  ])('%s reads as the LIKE pattern %s', (glob, pattern) => {
    expect(likePattern(glob)).toBe(pattern);
  });

  it('refuses a glob ending with a lone backslash, and only that', () => {
    expect(globProblem('urn:\\')).toContain('lone "\\"');
    expect(globProblem('urn:\\\\')).toBeUndefined();
    expect(globProblem('urn:\\*')).toBeUndefined();
    expect(globProblem('*')).toBeUndefined();
  });
});
