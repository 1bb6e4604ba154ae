import type { Database } from '../../../db/database.js';
import { DatabaseBudget } from '../../../db/deadline.js';
import { boundRunner } from '../../../db/runner.js';
import { findActiveApiKey, touchApiKeys, type ApiKeyScope } from '../../../db/queries/api-keys.js';
import { hashApiKey, hashesEqual, parseApiKey } from './api-key.js';

export interface Principal {
  keyId: string;
  scope: ApiKeyScope;
}

/** Revocation reaches every instance within this bound (stated in the README). */
export const KEY_CACHE_TTL_MS = 1_000;
/**
 * A key that was not found stays unknown this long without another lookup. Only a key that
 * could be issued later would be wrongly refused, and issued keys carry 190 random bits, so
 * nobody sends one before it exists.
 */
export const UNKNOWN_KEY_TTL_MS = 10_000;
const KEY_CACHE_MAX_ENTRIES = 10_000;
const LAST_USED_RESOLUTION_MS = 60_000;

interface CachedPrincipal {
  principal: Principal;
  expiresAt: number;
}

/**
 * Resolves a bearer token to the key it names. Database keys are looked up by their public id
 * and compared by hash in constant time; a positive answer is cached briefly so the hot path
 * does not pay a round trip per request, and a negative one a little longer, so a forged key
 * sent again costs nothing. Keys that were accepted once are remembered, so that a limit on
 * lookups for unknown keys never stands in a valid key's way.
 */
export class Authenticator {
  private readonly envKeys: { id: string; hash: string }[];
  private readonly cache = new Map<string, CachedPrincipal>();
  /** Digests a lookup did not find, until when. */
  private readonly unknown = new Map<string, number>();
  /** Digests that were accepted at least once: never held back by a limit on lookups. */
  private readonly known = new Set<string>();
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    envKeys: readonly string[],
    private readonly onBackgroundError: (error: unknown) => void = () => undefined,
  ) {
    this.envKeys = envKeys.map((key, index) => ({ id: `env-${index + 1}`, hash: hashApiKey(key) }));
  }

  /**
   * `budget` bounds the lookup: a hung database must not hold the request past its deadline.
   * `beforeUnknownLookup` runs before a lookup for a key never accepted here, and may refuse it
   * by throwing.
   */
  async authenticate(
    token: string,
    budget = new DatabaseBudget(),
    beforeUnknownLookup?: () => Promise<void>,
  ): Promise<Principal | null> {
    const hash = hashApiKey(token);
    const envPrincipal = this.matchEnvKey(hash);
    if (envPrincipal) return envPrincipal;

    const id = parseApiKey(token);
    if (!id) return null;
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.principal;
    if ((this.unknown.get(hash) ?? 0) > now) return null;
    if (beforeUnknownLookup && !this.known.has(hash)) await beforeUnknownLookup();

    const stored = await budget.within(() => findActiveApiKey(boundRunner(this.db, budget), id));
    if (!stored || !hashesEqual(stored.secretHash, hash)) {
      this.cache.delete(hash);
      remember(this.unknown, hash, now + UNKNOWN_KEY_TTL_MS);
      return null;
    }
    const principal: Principal = { keyId: id, scope: stored.scope };
    remember(this.cache, hash, { principal, expiresAt: now + KEY_CACHE_TTL_MS });
    if (this.known.size >= KEY_CACHE_MAX_ENTRIES) this.known.clear();
    this.known.add(hash);
    this.recordUse(id, now);
    return principal;
  }

  /**
   * The caller a key id names while the key is valid (a stream ticket names its key by id):
   * looked up each time, so a key revoked a moment ago is refused.
   */
  async principalOf(keyId: string, budget = new DatabaseBudget()): Promise<Principal | null> {
    if (this.envKeys.some((key) => key.id === keyId)) return { keyId, scope: 'write' };
    const stored = await budget.within(() => findActiveApiKey(boundRunner(this.db, budget), keyId));
    return stored ? { keyId, scope: stored.scope } : null;
  }

  /** Every configured key is compared, so the time taken does not say which one matched. */
  private matchEnvKey(hash: string): Principal | undefined {
    let matched: string | undefined;
    for (const key of this.envKeys) {
      if (hashesEqual(key.hash, hash)) matched = key.id;
    }
    return matched ? { keyId: matched, scope: 'write' } : undefined;
  }

  private recordUse(id: string, now: number): void {
    const last = this.lastTouched.get(id) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(id, now);
    touchApiKeys(this.db, [id], new Date(now)).catch(this.onBackgroundError);
  }
}

/** Bounded: a flood of distinct keys empties the map rather than growing it without end. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= KEY_CACHE_MAX_ENTRIES) map.clear();
  map.set(key, value);
}

export type BearerCredentials =
  { kind: 'missing' } | { kind: 'invalid' } | { kind: 'token'; token: string };

const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** RFC 6750 bearer syntax; the scheme name is case-insensitive. */
export function readBearer(header: string | undefined): BearerCredentials {
  if (header === undefined || header === '') return { kind: 'missing' };
  const token = BEARER.exec(header)?.[1];
  if (token) return { kind: 'token', token };
  // RFC 6750 §3: another scheme (Basic, ...) is no bearer credential at all, so no error code.
  return /^bearer(\s|$)/i.test(header) ? { kind: 'invalid' } : { kind: 'missing' };
}
