import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../db/client.js';
import { listApiKeys, revokeApiKey } from '../../db/queries/api-keys.js';
import { generateApiKey } from '../../server/domain/auth/api-key.js';
import {
  Authenticator,
  KEY_CACHE_TTL_MS,
  UNKNOWN_KEY_TTL_MS,
} from '../../server/domain/auth/authenticator.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import { attachRunners, runnerOf } from '../../db/runner.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());
afterEach(() => {
  vi.useRealTimers();
});

/**
 * The real database, counting the reads (statements run, as the key lookup is) and the writes
 * (drizzle updates, as recording a key's use is) made through it.
 */
function counted(db: Database) {
  const calls = { select: 0, update: 0 };
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'update') calls.update += 1;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  const runner = runnerOf(db);
  attachRunners(proxy, () => ({
    rows: (statement, values) => {
      calls.select += 1;
      return runner.rows(statement, values);
    },
    transaction: (work) => runner.transaction(work),
  }));
  return { db: proxy, calls };
}

const consulted = (what: string) => new Error(`the database was consulted (${what})`);

/** A database that fails the test if anything reaches it. */
const untouchable = new Proxy<object>(
  {},
  {
    get(_target, property) {
      throw consulted(String(property));
    },
  },
) as Database;
attachRunners(untouchable, () => ({
  rows: () => Promise.reject(consulted('a statement')),
  transaction: () => Promise.reject(consulted('a transaction')),
}));

function withBrokenChecksum(key: string): string {
  const last = key.at(-1) === 'a' ? 'b' : 'a';
  return key.slice(0, -1) + last;
}

describe('Authenticator', () => {
  it('refuses a key with a wrong checksum without a database lookup', async () => {
    const authenticator = new Authenticator(untouchable, []);
    const { key } = generateApiKey();
    await expect(authenticator.authenticate(withBrokenChecksum(key))).resolves.toBeNull();
    await expect(authenticator.authenticate('psk_short_1')).resolves.toBeNull();
    // The same database is consulted for a well-formed key, so the check above means something.
    await expect(authenticator.authenticate(key)).rejects.toThrow(/database was consulted/);
  });

  it('accepts the API_KEYS keys without a database lookup, as write keys', async () => {
    const authenticator = new Authenticator(untouchable, ['first-key', 'second-key']);
    await expect(authenticator.authenticate('second-key')).resolves.toEqual({
      keyId: 'env-2',
      scope: 'write',
    });
    await expect(authenticator.authenticate('third-key')).resolves.toBeNull();
  });

  it('reads a key at most once per second, and records its use at most once a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = new Date('2030-01-01T00:00:00Z').getTime();
    vi.setSystemTime(start);
    const issued = await issueApiKey(database.handle.db, { name: 'hot', scope: 'read' });
    const { db, calls } = counted(database.handle.db);
    const authenticator = new Authenticator(db, []);
    const principal = { keyId: issued.id, scope: 'read' };

    for (const offsetMs of [0, 10, 999]) {
      vi.setSystemTime(start + offsetMs);
      await expect(authenticator.authenticate(issued.key)).resolves.toEqual(principal);
    }
    expect(calls).toEqual({ select: 1, update: 1 });

    for (const offsetMs of [1_000, 30_000, 59_999]) {
      vi.setSystemTime(start + offsetMs);
      await expect(authenticator.authenticate(issued.key)).resolves.toEqual(principal);
    }
    expect(calls).toEqual({ select: 4, update: 1 });

    vi.setSystemTime(start + 61_000);
    await authenticator.authenticate(issued.key);
    expect(calls).toEqual({ select: 5, update: 2 });
    await expect
      .poll(async () => {
        const keys = await listApiKeys(database.handle.db);
        return keys.find((key) => key.id === issued.id)?.lastUsedAt?.getTime();
      })
      .toBe(start + 61_000);
  });

  it(`stops accepting a revoked key once its ${KEY_CACHE_TTL_MS} ms cache entry expires`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const issued = await issueApiKey(database.handle.db, { name: 'revoked', scope: 'write' });
    const authenticator = new Authenticator(database.handle.db, []);
    await expect(authenticator.authenticate(issued.key)).resolves.not.toBeNull();

    expect(await revokeApiKey(database.handle.db, issued.id)).toBe(true);
    vi.setSystemTime(start + KEY_CACHE_TTL_MS - 1);
    await expect(authenticator.authenticate(issued.key)).resolves.not.toBeNull();
    vi.setSystemTime(start + KEY_CACHE_TTL_MS);
    await expect(authenticator.authenticate(issued.key)).resolves.toBeNull();
  });

  it(`looks up a forged key once per ${UNKNOWN_KEY_TTL_MS} ms, however often it is sent`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const { db, calls } = counted(database.handle.db);
    const authenticator = new Authenticator(db, []);
    const { key } = generateApiKey();
    for (let i = 0; i < 5; i++) await expect(authenticator.authenticate(key)).resolves.toBeNull();
    expect(calls.select).toBe(1);
    vi.setSystemTime(start + UNKNOWN_KEY_TTL_MS);
    await authenticator.authenticate(key);
    expect(calls.select).toBe(2);
  });

  it('asks the gate before looking up a key it never accepted, and never for one it did', async () => {
    const issued = await issueApiKey(database.handle.db, { name: 'gated', scope: 'read' });
    const { db, calls } = counted(database.handle.db);
    const authenticator = new Authenticator(db, []);
    const refuse = () => Promise.reject(new Error('refused by the gate'));
    await expect(authenticator.authenticate(issued.key, undefined, refuse)).rejects.toThrow(
      /refused by the gate/,
    );
    await expect(
      authenticator.authenticate(generateApiKey().key, undefined, refuse),
    ).rejects.toThrow(/refused by the gate/);
    expect(calls.select).toBe(0);

    await expect(authenticator.authenticate(issued.key)).resolves.not.toBeNull();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + KEY_CACHE_TTL_MS);
    // Past the cache, a key accepted once is looked up again without asking the gate.
    await expect(authenticator.authenticate(issued.key, undefined, refuse)).resolves.not.toBeNull();
    expect(calls.select).toBe(2);
  });
});
