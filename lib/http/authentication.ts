import type { APIGatewayProxyEventV2 } from 'aws-lambda';

import { type Authenticated, AuthenticationError, type AuthenticationFailure, AuthenticationUnavailable, Authenticator } from '#lib/auth/authenticator';
import { backendSecrets } from '#lib/auth/backend-secrets';
import { KeySetCache } from '#lib/auth/key-set-cache';
import { callerOf, holdsEverything } from '#lib/authorization/caller-access';
import { RoleBindingRepository } from '#lib/authorization/role-binding-repository';
import { lazilyPer } from '#lib/cache/lazy';
import type { ServiceContext } from '#lib/db/client';
import { logger } from '#lib/logging/logger';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { outboundFetch, timeoutsOf } from '#lib/platform/http-client';
import type { Settings } from '#lib/settings/index';

import type { Endpoint, Principal } from './endpoint';
import { ServiceUnavailable, Unauthorized } from './problems';

const REALM = 'computational-governance';
/** However many unknown key ids arrive, the key set is fetched at most this often. */
const KEY_SET_REFETCH_INTERVAL_MS = 10_000;

const DETAIL: Record<AuthenticationFailure, string> = {
  missing: 'Credentials are required: send Authorization: Bearer <jwt>',
  malformed: 'The Authorization header holds neither a Bearer token nor Basic credentials',
  expired: 'The token has expired',
  'not yet valid': 'The token is not valid yet',
  'no expiry': 'The token has no expiry (exp): every token must expire',
  'too long-lived': 'The technical token lives longer than auth.technical-token-max-lifetime allows',
  invalid: 'The credentials are not valid',
  'basic disabled': 'Basic authentication is not enabled: send Authorization: Bearer <jwt>',
  'no subject': 'The access token was exchanged for a token that names no subject (sub, client_id or azp)',
  'user mismatch': 'The Basic user name is not the subject the access token was issued to',
  'unreadable subject': "The token's subject holds control or invisible characters, blanks around it, or mixes Latin, Greek and Cyrillic letters",
};

export const keySetUrl = (settings: Settings) =>
  settings.platformServices.auth.jwksUrl ?? `${settings.platformServices.baseUrl.replace(/\/+$/, '')}/api/auth/.well-known/jwks.json`;

/** The authenticator of a set of settings (its key-set cache and backend secrets), made once for them. */
const authenticatorOf = lazilyPer(async (settings: Settings): Promise<Authenticator> => {
  const { cacheSize, cacheDuration } = settings.platformServices.auth;
  const keySet = new KeySetCache({
    url: keySetUrl(settings),
    fetch: outboundFetch(timeoutsOf(settings)),
    maxKeys: cacheSize,
    ttlMs: cacheDuration,
    minRefetchIntervalMs: KEY_SET_REFETCH_INTERVAL_MS,
  });
  return new Authenticator(settings, keySet, await backendSecrets(settings));
});

/**
 * The single switch point of authentication for every endpoint of both services: the caller is
 * verified here or the request ends with 401 (503 when the platform cannot be asked), and what it
 * may do is read from its token and the role bindings (lib/authorization).
 */
export async function authenticate(event: APIGatewayProxyEventV2, endpoint: Endpoint, { database, settings }: ServiceContext): Promise<Principal> {
  const who = await verify(event, settings);
  const fromToken = callerOf(who, settings, []);
  // The bindings of the database can only add grants: a caller whose token or application.conf
  // already grants everything everywhere (an admin) needs no query; /me shows every grant.
  const complete = endpoint.access !== 'authenticated' && holdsEverything(fromToken);
  const stored = complete ? [] : await new RoleBindingRepository(database).matching([who.subject], fromToken.groups);
  const { groups, access } = complete ? fromToken : callerOf(who, settings, stored);
  return { subject: who.subject, method: who.method, groups, access };
}

async function verify(event: APIGatewayProxyEventV2, settings: Settings): Promise<Authenticated> {
  const authenticator = await authenticatorOf(settings);
  try {
    return await authenticator.authenticate(event.headers?.authorization);
  } catch (error) {
    if (error instanceof AuthenticationError) {
      recordMetric('AuthenticationRefusals', MetricUnit.Count, 1, { reason: error.reason });
      const bearer = `Bearer realm="${REALM}"${error.reason === 'missing' ? '' : ', error="invalid_token"'}`;
      const challenge = settings.platformServices.auth.basicAuth.enabled ? `${bearer}, Basic realm="${REALM}"` : bearer;
      throw new Unauthorized(DETAIL[error.reason], challenge);
    }
    if (error instanceof AuthenticationUnavailable) {
      // The reason names internal addresses: it is for the log, not for a caller who is not yet known.
      logger.warn({ err: error }, 'credentials could not be checked: the platform cannot be asked');
      throw new ServiceUnavailable('Credentials cannot be checked right now: the platform that issues them cannot be reached. Try again shortly.');
    }
    throw error;
  }
}
