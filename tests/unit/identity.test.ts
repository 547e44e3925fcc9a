import { describe, expect, it } from 'vitest';

import { sameIdentity, unreadableSubject } from '#lib/auth/identity';

describe('identities', () => {
  it('are the same person whatever their Unicode form, case or surrounding blanks', () => {
    for (const lookAlike of ['alice', 'ALICE', 'Alice', ' alice', 'alice ', '\uff41lice' /* full-width a */])
      expect(sameIdentity(lookAlike, 'alice'), JSON.stringify(lookAlike)).toBe(true);
    expect(sameIdentity('bob', 'alice')).toBe(false);
    expect(sameIdentity('\u0430lice' /* Cyrillic a */, 'alice')).toBe(false);
  });

  it('refuses subjects that imitate another: invisible or control characters, blanks around them, Latin mixed with Greek or Cyrillic', () => {
    for (const subject of ['alice\t', 'al\u200dice', '\u202ealice', 'alice\n', ' alice', 'alice ', '\u0430lice', 'p\u0430ypal', 'ali\u03bfe'])
      expect(unreadableSubject(subject), JSON.stringify(subject)).toBeDefined();
    for (const subject of ['alice', 'ana@acme.io', 'svc-orders', 'алиса', 'ωμέγα', '山田太郎', 'service-account-1', 'O\u2019Brien'])
      expect(unreadableSubject(subject), subject).toBeUndefined();
  });
});
