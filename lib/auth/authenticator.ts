import { createHash } from 'node:crypto';

import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';

import { LruMap } from '#lib/cache/lru-map';
import { callPlatform, PlatformError } from '#lib/platform/platform-client';
import type { Settings } from '#lib/settings/index';

import { sameIdentity, unreadableSubject } from './identity';
import { ASYMMETRIC_ALGORITHMS, type KeySetCache } from './key-set-cache';

export type AuthenticationFailure =
  | 'missing'
  | 'malformed'
  | 'expired'
  | 'not yet valid'
  | 'no expiry'
  | 'too long-lived'
  | 'invalid'
  | 'basic disabled'
  | 'no subject'
  | 'user mismatch'
  | 'unreadable subject';

/** The credentials do not let the caller in (401). The reason never says which secret was tried. */
export class AuthenticationError extends Error {
  constructor(readonly reason: AuthenticationFailure) {
    super(reason);
    this.name = 'AuthenticationError';
  }
}

/** The credentials cannot be checked right now: the platform (key set, token exchange) is unreachable (503). */
export class AuthenticationUnavailable extends Error {
  override name = 'AuthenticationUnavailable';
}

export interface Authenticated {
  readonly subject: string;
  readonly method: 'service-account' | 'technical' | 'basic';
  /** The verified token's claims (for Basic, those of the exchanged JWT): roles and groups are read from them. */
  readonly claims: JWTPayload;
}

const HMAC_ALGORITHMS = ['HS256', 'HS512'];
/** Clocks of the platform and of the functions may differ a little. */
const CLOCK_TOLERANCE_S = 30;
/** An exchanged JWT is used until this long before it expires. */
const EXCHANGE_MARGIN_MS = 30_000;
const TOKEN_EXCHANGE_PATH = '/api/auth/access-tokens/jwt';
/** Access tokens whose exchanged JWT a process keeps (and exchanges under way it shares): the least recently used go first. */
const EXCHANGES_KEPT = 1000;
/** Bearer tokens a process keeps verified: the least recently used go first. */
const VERIFIED_KEPT = 1000;

function failureOf(error: unknown): AuthenticationFailure {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf') return 'not yet valid';
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp') return 'no expiry';
  return 'invalid';
}

/** Every accepted token expires: one without `exp` would be a credential for ever. */
const REQUIRED_CLAIMS = ['exp'];

/** Who a verified token says the caller is: its `sub`, else its `client_id` or `azp`. */
const namedSubject = (payload: JWTPayload): string | undefined =>
  [payload.sub, payload.client_id, payload.azp].find((value): value is string => typeof value === 'string' && value.length > 0);

const subjectOf = (payload: JWTPayload, fallback: string) => namedSubject(payload) ?? fallback;

/**
 * Verifies the Authorization header of a request: service-account JWTs (asymmetric, the
 * platform's key set), technical JWTs (HMAC, each backend secret in turn) and, when enabled, Basic
 * credentials exchanged with the platform for a service-account JWT.
 */
export class Authenticator {
  private readonly exchanged: LruMap<string, { jwt: string; usableUntil: number }>;
  private readonly exchanging: LruMap<string, Promise<string>>;
  /**
   * Bearer tokens verified lately and who they say the caller is, until they expire (a service
   * account's no longer than its key is kept, auth.cache-duration: a key the platform removes stops
   * them as it would stop a token verified anew): a deploy gate sends the same token call after
   * call, and a signature check costs each one.
   */
  private readonly verified = new LruMap<string, { who: Authenticated; until: number }>(VERIFIED_KEPT);

  constructor(
    private readonly settings: Settings,
    private readonly keySet: KeySetCache,
    private readonly backendSecrets: readonly Uint8Array[],
    private readonly now: () => number = Date.now,
    exchangesKept = EXCHANGES_KEPT,
  ) {
    this.exchanged = new LruMap(exchangesKept);
    this.exchanging = new LruMap(exchangesKept);
  }

  /** How many exchanged JWTs are kept. */
  get exchangedTokens(): number {
    return this.exchanged.size;
  }

  async authenticate(authorization: string | undefined): Promise<Authenticated> {
    if (!authorization?.trim()) throw new AuthenticationError('missing');
    const [scheme, credentials, ...rest] = authorization.trim().split(/\s+/);
    if (!credentials || rest.length > 0) throw new AuthenticationError('malformed');
    let who: Authenticated;
    if (/^bearer$/i.test(scheme)) who = await this.bearer(credentials);
    else if (/^basic$/i.test(scheme)) who = await this.basic(credentials);
    else throw new AuthenticationError('malformed');
    // A subject is a name that people and bindings can tell apart from every other (./identity.ts).
    if (unreadableSubject(who.subject)) throw new AuthenticationError('unreadable subject');
    return who;
  }

  private async bearer(token: string): Promise<Authenticated> {
    const known = this.verified.get(token);
    if (known && this.now() < known.until) return known.who;
    const who = await this.verifiedBearer(token);
    const expiresAt = (who.claims.exp as number) * 1000;
    const until = who.method === 'service-account' ? Math.min(expiresAt, this.now() + this.settings.platformServices.auth.cacheDuration) : expiresAt;
    this.verified.set(token, { who, until });
    return who;
  }

  private async verifiedBearer(token: string): Promise<Authenticated> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new AuthenticationError('malformed');
    }
    if (alg && (ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) {
      const claims = await this.serviceAccount(token, alg);
      return { subject: subjectOf(claims, 'service-account'), method: 'service-account', claims };
    }
    if (alg && HMAC_ALGORITHMS.includes(alg)) {
      const claims = await this.technical(token);
      return { subject: subjectOf(claims, 'technical'), method: 'technical', claims };
    }
    // `none` and anything else
    throw new AuthenticationError('invalid');
  }

  private async serviceAccount(token: string, alg: string): Promise<JWTPayload> {
    const { kid } = decodeProtectedHeader(token);
    if (!kid) throw new AuthenticationError('invalid');
    let key: Awaited<ReturnType<KeySetCache['key']>>;
    try {
      key = await this.keySet.key(kid, alg);
    } catch (error) {
      throw new AuthenticationUnavailable(`the platform key set cannot be fetched: ${(error as Error).message}`);
    }
    if (!key) throw new AuthenticationError('invalid');
    const { issuer, audience } = this.settings.platformServices.auth;
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [alg],
        issuer,
        audience,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.now()),
        requiredClaims: REQUIRED_CLAIMS,
      });
      return payload;
    } catch (error) {
      throw new AuthenticationError(failureOf(error));
    }
  }

  private async technical(token: string): Promise<JWTPayload> {
    let failure: AuthenticationFailure = 'invalid';
    for (const secret of this.backendSecrets) {
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: HMAC_ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: new Date(this.now()),
          requiredClaims: REQUIRED_CLAIMS,
        });
        // Technical tokens are signed by hand (npm run token, a CI job): their lifetime is bounded.
        // Counted from `iat`, or from now when it is absent or claims the future.
        const nowS = this.now() / 1000;
        const lifetimeMs = ((payload.exp as number) - Math.min(payload.iat ?? nowS, nowS)) * 1000;
        if (lifetimeMs > this.settings.platformServices.auth.technicalTokenMaxLifetime + CLOCK_TOLERANCE_S * 1000)
          throw new AuthenticationError('too long-lived');
        return payload;
      } catch (error) {
        if (error instanceof AuthenticationError) throw error;
        // A signature that matches but a token out of date says more than "invalid".
        if (!(error instanceof errors.JWSSignatureVerificationFailed)) failure = failureOf(error);
      }
    }
    throw new AuthenticationError(failure);
  }

  private async basic(credentials: string): Promise<Authenticated> {
    const { enabled } = this.settings.platformServices.auth.basicAuth;
    if (!enabled) throw new AuthenticationError('basic disabled');
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0 || colon === decoded.length - 1) throw new AuthenticationError('malformed');
    const accessToken = decoded.slice(colon + 1);
    const jwt = await this.exchange(accessToken);
    const alg = decodeProtectedHeader(jwt).alg ?? '';
    if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) throw new AuthenticationError('invalid');
    const claims = await this.serviceAccount(jwt, alg);
    // The caller is who the exchanged token says, never the user name beside the access token: that
    // name only has to agree with it (bindings name subjects, and four-eyes compares them).
    const subject = namedSubject(claims);
    if (subject === undefined) throw new AuthenticationError('no subject');
    if (!sameIdentity(decoded.slice(0, colon), subject)) throw new AuthenticationError('user mismatch');
    return { subject, method: 'basic', claims };
  }

  /**
   * One exchange per access token until shortly before its JWT expires, also under a burst of calls;
   * of the last EXCHANGES_KEPT access tokens used (another token exchanges again).
   */
  private async exchange(accessToken: string): Promise<string> {
    const id = createHash('sha256').update(accessToken).digest('hex');
    const cached = this.exchanged.get(id);
    if (cached && cached.usableUntil > this.now()) return cached.jwt;
    if (cached) this.exchanged.delete(id);
    let pending = this.exchanging.get(id);
    if (!pending) {
      const exchange = this.requestExchange(accessToken).finally(() => {
        // Another exchange of the same token may have taken the place of one dropped past the bound.
        if (this.exchanging.get(id) === exchange) this.exchanging.delete(id);
      });
      pending = exchange;
      this.exchanging.set(id, pending);
    }
    const jwt = await pending;
    const exp = decodeJwt(jwt).exp;
    if (exp) this.exchanged.set(id, { jwt, usableUntil: exp * 1000 - EXCHANGE_MARGIN_MS });
    return jwt;
  }

  private async requestExchange(accessToken: string): Promise<string> {
    const { shortLivedTokenDurationSeconds, scope } = this.settings.platformServices.auth.basicAuth;
    let response: Response;
    try {
      response = await callPlatform(this.settings, TOKEN_EXCHANGE_PATH, {
        method: 'POST',
        body: { access_token: accessToken, duration_seconds: shortLivedTokenDurationSeconds, scope },
      });
    } catch (error) {
      if (error instanceof PlatformError && error.status >= 400 && error.status < 500) throw new AuthenticationError('invalid');
      throw new AuthenticationUnavailable(`the platform token exchange failed: ${(error as Error).message.split(accessToken).join('[REDACTED]')}`);
    }
    const { jwt } = (await response.json().catch(() => ({}))) as { jwt?: unknown };
    if (typeof jwt !== 'string') throw new AuthenticationUnavailable('the platform token exchange answered without a jwt');
    return jwt;
  }
}
