import { SignJWT } from 'jose';

import { backendSecrets } from '#lib/auth/backend-secrets';
import type { Role } from '#lib/authorization/roles';
import type { Settings } from '#lib/settings/index';

/**
 * A technical JWT for calling the API locally, signed with the first auth.backend-secrets entry,
 * or with the secret npm start generated in .data/ when there is none; undefined when there is no
 * secret at all (a deployed environment with an empty list). Valid 12 hours, or
 * auth.technical-token-max-lifetime when that is shorter (a token it would refuse is no use).
 * Its roles claim is `roles` (admin unless told otherwise).
 */
export async function localToken(settings: Settings, subject = 'local-developer', roles: readonly Role[] = ['admin']): Promise<string | undefined> {
  const [secret] = await backendSecrets(settings);
  if (!secret) return undefined;
  const lifetimeS = Math.min(12 * 3600, Math.floor(settings.platformServices.auth.technicalTokenMaxLifetime / 1000));
  const nowS = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'local-development', roles })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + lifetimeS)
    .sign(secret);
}
