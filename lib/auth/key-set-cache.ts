import { importJWK, type JWK } from 'jose';

import { LruMap } from '#lib/cache/lru-map';
import type { Fetch } from '#lib/platform/http-client';

/** Only asymmetric keys verify service-account JWTs. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

type VerificationKey = Awaited<ReturnType<typeof importJWK>>;

interface CachedKey {
  jwk: JWK;
  /** Imported keys are bound to one algorithm: one import per algorithm asked for. */
  imported: Map<string, VerificationKey>;
  expiresAt: number;
}

export interface KeySetCacheOptions {
  url: string;
  fetch: Fetch;
  /** At most this many keys are kept (`auth.cache-size`); the least recently used go first. */
  maxKeys: number;
  /** How long a key is kept (`auth.cache-duration`). */
  ttlMs: number;
  /** A flood of unknown key ids makes at most one fetch per this interval. */
  minRefetchIntervalMs: number;
  now?: () => number;
}

/**
 * The platform's JSON Web Key Set, cached key by key. The set is fetched again only for a key id
 * not in the cache (or expired), at most once per `minRefetchIntervalMs`, one fetch at a time.
 * Until a fetch succeeds again, a key id it would have had to look up fails as the last fetch
 * did, so that every such request hears "cannot be checked", not "not valid".
 */
export class KeySetCache {
  private readonly keys: LruMap<string, CachedKey>;
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  private lastFailure?: Error;
  private inFlight?: Promise<void>;
  fetchCount = 0;

  constructor(private readonly options: KeySetCacheOptions) {
    this.keys = new LruMap(options.maxKeys);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private cached(kid: string): CachedKey | undefined {
    const entry = this.keys.get(kid);
    if (entry && entry.expiresAt > this.now()) return entry;
    if (entry) this.keys.delete(kid);
    return undefined;
  }

  /**
   * The key with id `kid` for algorithm `alg`, or undefined when the platform does not know the
   * key either, or publishes it for another algorithm.
   */
  async key(kid: string, alg: string): Promise<VerificationKey | undefined> {
    let entry = this.cached(kid);
    if (!entry) {
      if (this.now() - this.lastFetchAt >= this.options.minRefetchIntervalMs) {
        this.inFlight ??= this.refresh().finally(() => {
          this.inFlight = undefined;
        });
      }
      if (this.inFlight) await this.inFlight;
      else if (this.lastFailure) throw this.lastFailure;
      entry = this.cached(kid);
    }
    if (!entry || (entry.jwk.alg && entry.jwk.alg !== alg)) return undefined;
    let key = entry.imported.get(alg);
    if (!key) {
      key = await importJWK(entry.jwk, alg);
      entry.imported.set(alg, key);
    }
    return key;
  }

  get size(): number {
    return this.keys.size;
  }

  private async refresh(): Promise<void> {
    this.lastFetchAt = this.now();
    this.fetchCount++;
    let keys: JWK[] | undefined;
    try {
      const response = await this.options.fetch(this.options.url, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`the key set at ${this.options.url} answered ${response.status}`);
      ({ keys } = (await response.json()) as { keys?: JWK[] });
      this.lastFailure = undefined;
    } catch (error) {
      this.lastFailure = error as Error;
      throw error;
    }
    const expiresAt = this.now() + this.options.ttlMs;
    for (const jwk of Array.isArray(keys) ? keys : []) {
      // Symmetric (oct) keys never verify a service-account JWT.
      if (!jwk.kid || !['RSA', 'EC', 'OKP'].includes(jwk.kty ?? '')) continue;
      this.keys.set(jwk.kid, { jwk, imported: new Map(), expiresAt });
    }
  }
}
