import { type JWTPayload, SignJWT } from 'jose';

import { TEST_BACKEND_SECRET } from './settings-files';

/**
 * A technical JWT the test settings accept (HS256 with the tests' backend secret). Its roles claim
 * is `["admin"]` unless the claims give `roles`; `roles: undefined` leaves the claim out, so the
 * token gets authorization.technical-token-roles as the platform's own backend calls do.
 */
export function technicalToken(claims: JWTPayload = {}, secret = TEST_BACKEND_SECRET, alg = 'HS256'): Promise<string> {
  return new SignJWT('roles' in claims ? { ...claims } : { roles: ['admin'], ...claims })
    .setProtectedHeader({ alg, typ: 'JWT' })
    .setSubject((claims.sub as string | undefined) ?? 'test-caller')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(secret));
}

/** Headers of an authenticated JSON call. */
export async function authorized(headers: Record<string, string> = {}): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await technicalToken()}`, ...headers };
}
