import { describe, expect, it, vi } from 'vitest';
import { useServersSharingRedis } from '../helpers/shared-redis.js';
import { TEST_KEY, type TestServer } from '../helpers/server.js';

const LIMIT = 4;
const WARNING = 'Redis is unavailable: rate limits are counted per process until it returns';
const RECOVERED = 'Redis is available again: rate limits are shared again';

const OTHER_KEY = 'test-key-other';
const BATCH_KEY = 'test-key-batch';

const servers = useServersSharingRedis({ apiKeys: [TEST_KEY, OTHER_KEY, BATCH_KEY], limit: LIMIT });

async function statusesOf(count: number, pick: (i: number) => TestServer, key: string) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++)
    statuses.push((await pick(i).api('GET', '/v1/pets', { key })).status);
  return statuses;
}

describe('rate limits shared through Redis', () => {
  it('holds two instances to one budget per key', async () => {
    const alternate = (i: number) => (i % 2 === 0 ? servers.first : servers.second);
    expect(await statusesOf(LIMIT + 2, alternate, TEST_KEY)).toEqual([
      200, 200, 200, 200, 429, 429,
    ]);
  });

  it('gives back what a refused batch took from the shared budget', async () => {
    const batch = (server: TestServer, calls: number) =>
      fetch(
        `${server.origin}/trpc/${Array<string>(calls).fill('pets.list').join(',')}?batch=1&input=${encodeURIComponent('{}')}`,
        { headers: { authorization: `Bearer ${BATCH_KEY}` } },
      );
    expect((await batch(servers.first, LIMIT - 1)).status).toBe(200);
    expect((await batch(servers.second, 2)).status).toBe(429);
    expect(await statusesOf(2, () => servers.second, BATCH_KEY)).toEqual([200, 429]);
  });

  it('keeps serving on the in-process limit when Redis goes away, and says so once', async () => {
    expect((await servers.first.api('GET', '/v1/pets', { key: OTHER_KEY })).status).toBe(200);
    // Only this outage's lines: on a busy machine the earlier tests' Redis commands may have
    // timed out three times in a row, which is an outage of its own, logged as one.
    const logged = servers.first.logs.length;
    const since = (msg: string) => servers.first.logs.slice(logged).filter((l) => l.msg === msg);
    const warnings = () => since(WARNING);
    await servers.redis.stop();

    // The process now counts alone, from zero: a full budget, then 429 again.
    const startedAt = performance.now();
    expect(await statusesOf(LIMIT + 1, () => servers.first, OTHER_KEY)).toEqual([
      200, 200, 200, 200, 429,
    ]);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    await vi.waitFor(
      () => {
        expect(warnings().length).toBeGreaterThan(0);
      },
      {
        timeout: 5_000,
        interval: 50,
      },
    );
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.level).toBe(40);

    // Redis returns empty (nothing is persisted), so the shared count starts again.
    await servers.redis.start();
    await vi.waitFor(
      () => {
        // This outage's recovery: an earlier one's line would let the request below go out
        // while Redis is still away, into the in-process budget this outage spent.
        expect(since(RECOVERED).length).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(warnings()).toHaveLength(1);
    expect((await servers.first.api('GET', '/v1/pets', { key: OTHER_KEY })).status).toBe(200);
  });
});
