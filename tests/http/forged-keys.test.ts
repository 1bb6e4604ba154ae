import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../db/queries/api-keys.js';
import { generateApiKey } from '../../server/domain/auth/api-key.js';
import { KEY_CACHE_TTL_MS } from '../../server/domain/auth/authenticator.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import { startTestRedis, type TestRedis } from '../helpers/redis.js';
import { startTestServer, TEST_KEY, useTestServer, type TestServer } from '../helpers/server.js';

const FAILURES = 5;
const ATTACKER = '203.0.113.7';
const NEIGHBOUR = '198.51.100.9';

const server = useTestServer({
  authFailureLimit: { limit: FAILURES, windowSeconds: 60 },
  trustProxy: true,
});

/** A key in the right form with a checksum that holds: anyone can make one. */
const forged = () => generateApiKey().key;

function list(target: TestServer, key: string, from: string) {
  return target.api<{ message: string }>('GET', '/v1/pets?limit=1', {
    key,
    headers: { 'x-forwarded-for': `10.9.9.9, ${from}` },
  });
}

describe('keys that cost no lookup, sent again and again from one address', () => {
  it('stay 401, never 429: the budget guards lookups, and these make none', async () => {
    const from = '192.0.2.44';
    // A checksum that fails is refused before any lookup; a key refused less than 10 s ago too.
    const malformed = 'psk_AAAAAAAA_not-a-checksum-that-holds';
    const repeated = forged();
    for (let i = 0; i < 12 * FAILURES; i++) {
      expect((await list(server, malformed, from)).status).toBe(401);
      expect((await list(server, repeated, from)).status).toBe(401);
    }
    // Each failure counted all the same: the next key that would cost a lookup waits.
    expect((await list(server, forged(), from)).status).toBe(429);
  });
});

describe('well-formed keys that do not exist, from one address', () => {
  it('are 401 until the address has spent its failures, then 429 without a lookup', async () => {
    const valid = await issueApiKey(server.database.handle.db, { name: 'known', scope: 'read' });
    expect((await list(server, valid.key, ATTACKER)).status).toBe(200);

    for (let i = 0; i < FAILURES; i++) {
      const refused = await list(server, forged(), ATTACKER);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/invalid_token/);
    }
    const throttled = await list(server, forged(), ATTACKER);
    expect(throttled.status).toBe(429);
    expect(throttled.body.message).toMatch(/^Too many failed authentications from this address/);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // A key this address used successfully before is always looked up, so never locked out.
    expect((await list(server, valid.key, ATTACKER)).status).toBe(200);
    // The service's own keys need no lookup at all.
    expect((await list(server, TEST_KEY, ATTACKER)).status).toBe(200);

    // Another address has its own budget: its forged keys are 401, its valid keys work.
    const other = await issueApiKey(server.database.handle.db, { name: 'new', scope: 'read' });
    expect((await list(server, forged(), NEIGHBOUR)).status).toBe(401);
    expect((await list(server, other.key, NEIGHBOUR)).status).toBe(200);
  });

  it('still takes a revoked key away within 1 s, even from a spent address', async () => {
    const valid = await issueApiKey(server.database.handle.db, { name: 'revoked', scope: 'read' });
    // Never accepted here yet, so the spent address must wait; once accepted from elsewhere,
    // it is looked up for the spent address too.
    expect((await list(server, valid.key, ATTACKER)).status).toBe(429);
    expect((await list(server, valid.key, NEIGHBOUR)).status).toBe(200);
    expect((await list(server, valid.key, ATTACKER)).status).toBe(200);
    expect(await revokeApiKey(server.database.handle.db, valid.id)).toBe(true);
    // The accepted key's cache entry must expire before the revocation is seen: the wait is it.
    await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_TTL_MS));
    expect((await list(server, valid.key, ATTACKER)).status).toBe(401);
  });

  it('counts an IPv6 address as its /64, so rotating inside it buys no new failures', async () => {
    for (let i = 0; i < FAILURES; i++) {
      expect((await list(server, forged(), `2001:db8:0:7::${i + 1}`)).status).toBe(401);
    }
    expect((await list(server, forged(), '2001:db8::7:ffff:1:2:3')).status).toBe(429);
    expect((await list(server, forged(), '2001:db8:0:8::1')).status).toBe(401);
  });
});

describe('without TRUST_PROXY', () => {
  const direct = useTestServer({ authFailureLimit: { limit: FAILURES, windowSeconds: 60 } });

  it('counts the connection, whatever X-Forwarded-For claims', async () => {
    for (let i = 0; i < FAILURES; i++) {
      expect((await list(direct, forged(), `192.0.2.${i}`)).status).toBe(401);
    }
    expect((await list(direct, forged(), '192.0.2.200')).status).toBe(429);
  });
});

describe('with REDIS_URL', () => {
  let redis: TestRedis;
  const shared = () =>
    startTestServer({
      authFailureLimit: { limit: FAILURES, windowSeconds: 60 },
      trustProxy: true,
      redisUrl: redis.url,
    });
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    redis = await startTestRedis();
    [first, second] = await Promise.all([shared(), shared()]);
    await Promise.all([first.app.rateLimiter?.ready(), second.app.rateLimiter?.ready()]);
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await redis.stop();
  });

  it('spends one budget of failures per address across instances', async () => {
    for (let i = 0; i < FAILURES; i++) {
      expect((await list(i % 2 ? second : first, forged(), ATTACKER)).status).toBe(401);
    }
    expect((await list(first, forged(), ATTACKER)).status).toBe(429);
    expect((await list(second, forged(), ATTACKER)).status).toBe(429);
  });
});
