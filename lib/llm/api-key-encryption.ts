import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for the stored provider API keys. A ciphertext names the key that wrote it
 * (`v1.<key id>.<iv>.<tag>.<data>`), so keys can be rotated: the current key writes, the previous
 * ones are only read.
 */
export interface KeyRing {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

export class ApiKeyDecryptionError extends Error {
  override name = 'ApiKeyDecryptionError';
}

const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

export function encryptApiKey(plaintext: string, ring: KeyRing): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.current, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', keyId(ring.current), iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
}

export function decryptApiKey(ciphertext: string, ring: KeyRing): string {
  const [version, id, iv, tag, data] = ciphertext.split('.');
  if (version !== 'v1' || !data) throw new ApiKeyDecryptionError('stored API key has an unknown format');
  const key = [ring.current, ...ring.previous].find((candidate) => keyId(candidate) === id);
  if (!key)
    throw new ApiKeyDecryptionError(
      `stored API key was encrypted with key ${id}, which is neither assistant.encryption-key nor one of assistant.previous-encryption-keys`,
    );
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new ApiKeyDecryptionError('stored API key failed its integrity check', { cause: error });
  }
}

/** True when the ciphertext was written with a key other than the current one. */
export function needsReencryption(ciphertext: string, ring: KeyRing): boolean {
  return ciphertext.split('.')[1] !== keyId(ring.current);
}

/** What a reader may see of an API key: at most its last 4 characters, none of a short key. */
export function maskApiKey(plaintext: string): string {
  return plaintext.length >= 12 ? `****${plaintext.slice(-4)}` : '****';
}
