import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { ApiKeyDecryptionError, decryptApiKey, encryptApiKey, maskApiKey, needsReencryption } from '#lib/llm/api-key-encryption';

const key = () => randomBytes(32);

describe('API keys at rest', () => {
  it('round-trip through AES-256-GCM, with a fresh IV each time', () => {
    const ring = { current: key(), previous: [] };
    const first = encryptApiKey('sk-secret-value', ring);
    const second = encryptApiKey('sk-secret-value', ring);
    expect(first).not.toContain('sk-secret-value');
    expect(first).not.toBe(second);
    expect(decryptApiKey(first, ring)).toBe('sk-secret-value');
  });

  it('are still read after rotation, and say they need re-encryption', () => {
    const old = key();
    const stored = encryptApiKey('sk-old', { current: old, previous: [] });
    const rotated = { current: key(), previous: [old] };
    expect(decryptApiKey(stored, rotated)).toBe('sk-old');
    expect(needsReencryption(stored, rotated)).toBe(true);
    expect(needsReencryption(encryptApiKey('sk-old', rotated), rotated)).toBe(false);
  });

  it('fail clearly with an unknown key or a tampered ciphertext', () => {
    const stored = encryptApiKey('sk-x', { current: key(), previous: [] });
    expect(() => decryptApiKey(stored, { current: key(), previous: [] })).toThrow(ApiKeyDecryptionError);
    const ring = { current: key(), previous: [] };
    const parts = encryptApiKey('sk-x', ring).split('.');
    parts[4] = Buffer.from('tampered').toString('base64');
    expect(() => decryptApiKey(parts.join('.'), ring)).toThrow(/integrity/);
  });

  it.each([
    ['sk-0123456789abcdef', '****cdef'],
    ['short-key', '****'],
    ['', '****'],
  ])('mask %j as %j', (plaintext, masked) => {
    expect(maskApiKey(plaintext)).toBe(masked);
  });
});
