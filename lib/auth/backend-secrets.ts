import { logger } from '#lib/logging/logger';
import { runtimeEnvironment } from '#lib/settings/environment';
import type { Settings } from '#lib/settings/index';
import { localSecret } from '#lib/settings/local-secret';

const LOCAL_BACKEND_SECRET_FILE = 'local-backend-secret';

/**
 * The secrets technical JWTs are verified with: `auth.backend-secrets`. Deployed, an empty list
 * disables technical JWTs. Locally, an empty list means a secret generated in .data/, which
 * `npm run token` signs with, so that `npm start` is usable without turning authentication off.
 */
export async function backendSecrets(settings: Settings): Promise<Uint8Array[]> {
  const configured = settings.platformServices.auth.backendSecrets;
  if (configured.length > 0) return configured.map((secret) => new TextEncoder().encode(secret));
  if (runtimeEnvironment().deployed) return [];
  return [
    await localSecret(LOCAL_BACKEND_SECRET_FILE, (file) =>
      logger.warn({ file }, 'auth.backend-secrets is empty: generated a backend secret for local development (npm run token signs with it)'),
    ),
  ];
}
