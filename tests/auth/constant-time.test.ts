import { timingSafeEqual } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashApiKey } from '../../server/domain/auth/api-key.js';
import { Authenticator } from '../../server/domain/auth/authenticator.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return { ...crypto, timingSafeEqual: vi.fn(crypto.timingSafeEqual) };
});

const compared = vi.mocked(timingSafeEqual);

afterEach(() => {
  compared.mockClear();
});

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

/**
 * What makes the key check constant-time, rather than a measurement that loopback noise would
 * hide: a presented key is only ever compared as a SHA-256 digest, by timingSafeEqual, against
 * every configured key whichever matches. A `===` on keys or digests, or a loop that stops at
 * the first match, fails here.
 */
describe('API key comparison', () => {
  it('compares the digest of a presented key with every configured key, by timingSafeEqual', async () => {
    const configured = ['first-key', 'second-key', 'third-key'];
    const authenticator = new Authenticator(database.handle.db, configured);
    await expect(authenticator.authenticate('first-key')).resolves.toMatchObject({
      keyId: 'env-1',
    });
    expect(compared).toHaveBeenCalledTimes(configured.length);
    for (const [left, right] of compared.mock.calls) {
      expect([
        Buffer.from(left as Uint8Array).length,
        Buffer.from(right as Uint8Array).length,
      ]).toEqual([32, 32]);
    }
    expect(
      compared.mock.calls.map(([left]) => Buffer.from(left as Uint8Array).toString('hex')),
    ).toEqual(configured.map(hashApiKey));
  });

  it('compares a stored key by its digest, by timingSafeEqual', async () => {
    const { key } = await issueApiKey(database.handle.db, { name: 'compared', scope: 'write' });
    const authenticator = new Authenticator(database.handle.db, []);
    await expect(authenticator.authenticate(key)).resolves.toMatchObject({ scope: 'write' });
    expect(compared).toHaveBeenCalledTimes(1);
    const [stored, presented] = compared.mock.calls[0] ?? [];
    expect(Buffer.from(stored as Uint8Array).toString('hex')).toBe(hashApiKey(key));
    expect(Buffer.from(presented as Uint8Array).toString('hex')).toBe(hashApiKey(key));
  });
});
