import { logger } from '#lib/logging/logger';
import { runtimeEnvironment } from '#lib/settings/environment';
import type { Settings } from '#lib/settings/index';
import { localSecret } from '#lib/settings/local-secret';

import type { KeyRing } from './api-key-encryption';

export class MissingEncryptionKeyError extends Error {
  override name = 'MissingEncryptionKeyError';
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
      'computational-governance-platform.assistant.encryption-key is required when deployed: ' +
        'set ASSISTANT_ENCRYPTION_KEY to 32 random bytes in base64 (openssl rand -base64 32)',
    );
  }
  const current = await localSecret('assistant-encryption.key', (file) =>
    logger.warn(
      { file },
      'assistant.encryption-key is not set: generated a key for local development. Set ASSISTANT_ENCRYPTION_KEY for any shared or deployed environment.',
    ),
  );
  return { current, previous };
}
