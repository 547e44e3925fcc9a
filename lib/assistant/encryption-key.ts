import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { logger } from '../logging/logger';
import { runtimeEnvironment } from '../settings/environment';
import type { Settings } from '../settings';
import type { KeyRing } from './api-key-encryption';

export class MissingEncryptionKeyError extends Error {
  override name = 'MissingEncryptionKeyError';
}

/** Where a local run keeps the key it generated: beside the embedded database's data. */
export const localKeyFile = () => path.join(runtimeEnvironment().root, '.data', 'assistant-encryption.key');

async function localKey(): Promise<Buffer> {
  const file = localKeyFile();
  if (existsSync(file)) return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  const key = randomBytes(32);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${key.toString('base64')}\n`, { flag: 'wx' }).catch(async (error) => {
    // Another local process generated it first: use theirs.
    if (error.code !== 'EEXIST') throw error;
  });
  await chmod(file, 0o600);
  logger.warn({ file }, 'assistant.encryption-key is not set: using a key generated for local development. Set ASSISTANT_ENCRYPTION_KEY for any shared or deployed environment.');
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
}

/**
 * The keys that protect stored provider API keys. Deployed, `assistant.encryption-key` is required
 * (start fails without it); locally a generated key is kept in .data/ with a warning.
 */
export async function encryptionKeys(settings: Settings): Promise<KeyRing> {
  const previous = settings.assistant.previousEncryptionKeys.map((key) => Buffer.from(key, 'base64'));
  if (settings.assistant.encryptionKey) return { current: Buffer.from(settings.assistant.encryptionKey, 'base64'), previous };
  if (runtimeEnvironment().deployed) {
    throw new MissingEncryptionKeyError(
      'computational-governance-platform.assistant.encryption-key is required when deployed: set ASSISTANT_ENCRYPTION_KEY to 32 random bytes in base64 (openssl rand -base64 32)',
    );
  }
  return { current: await localKey(), previous };
}
