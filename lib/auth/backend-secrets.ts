import { logger } from '../logging/logger';
import type { Settings } from '../settings';
import { runtimeEnvironment } from '../settings/environment';
import { localSecret } from '../settings/local-secret';

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
