import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

import { present } from '../support/present';
import { FakeServer, type RecordedRequest } from './fake-server';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

/**
 * The platform's authentication side: a JSON Web Key Set at /api/auth/.well-known/jwks.json and
 * the token exchange at /api/auth/access-tokens/jwt, both recording what they receive.
 */
/** The body of a token exchange (the key-set request has none). */
type ExchangeBody = { access_token?: string; duration_seconds?: number } | undefined;

export class FakePlatformAuth extends FakeServer<ExchangeBody> {
  readonly keys = new Map<string, { pair: KeyPair; alg: string }>();
  published: string[] = [];
  /**
   * Access tokens the exchange accepts, each with the subject of the user it was issued to (the `sub` of
   * the JWT it is exchanged for; undefined: a JWT that names no subject).
   */
  readonly accessTokens = new Map<string, string | undefined>();
  private jwks: JWK[] = [];

  constructor() {
    super((request) => this.route(request));
  }

  async addKey(kid: string, alg = 'RS256', publish = true): Promise<void> {
    this.keys.set(kid, { pair: await generateKeyPair(alg, { extractable: true }), alg });
    if (publish) await this.publish(...this.published, kid);
  }

  /** The key pair made under `kid` (a test that names another fails here). */
  key(kid: string): { pair: KeyPair; alg: string } {
    return present(this.keys.get(kid), `the key ${kid}`);
  }

  async publish(...kids: string[]): Promise<void> {
    this.published = kids;
    this.jwks = await Promise.all(kids.map(async (kid) => ({ ...(await exportJWK(this.key(kid).pair.publicKey)), kid, alg: this.key(kid).alg, use: 'sig' })));
  }

  /** `expiresIn: null` signs a token without `exp`. */
  async sign(kid: string, claims: JWTPayload = {}, options: { expiresIn?: string | number | null; notBefore?: string | number } = {}): Promise<string> {
    const { pair, alg } = this.key(kid);
    const jwt = new SignJWT({ ...claims })
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .setSubject((claims.sub as string) ?? 'service-account-1')
      .setIssuedAt();
    if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? '5m');
    if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
    return jwt.sign(pair.privateKey);
  }

  get keySetFetches(): number {
    return this.requests.filter((request) => request.path.endsWith('/jwks.json')).length;
  }

  get exchanges(): RecordedRequest[] {
    return this.requests.filter((request) => request.path === '/api/auth/access-tokens/jwt');
  }

  /** The key the exchange signs with. */
  exchangeKid = '';

  private async route(request: RecordedRequest<ExchangeBody>) {
    if (request.path === '/api/auth/.well-known/jwks.json') return { status: 200, body: { keys: this.jwks } };
    if (request.path === '/api/auth/access-tokens/jwt') {
      const accessToken = request.body?.access_token;
      if (accessToken === undefined || !this.accessTokens.has(accessToken)) return { status: 401, body: { error: 'unknown access token' } };
      const owner = this.accessTokens.get(accessToken);
      // An empty `sub`: a token that names no one (sign() gives a subject to a token without one).
      const jwt = await this.sign(this.exchangeKid, { sub: owner ?? '' }, { expiresIn: `${request.body?.duration_seconds}s` });
      return { status: 200, body: { jwt } };
    }
    return { status: 404, body: { error: 'not here' } };
  }
}
