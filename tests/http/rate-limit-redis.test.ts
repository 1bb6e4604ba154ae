import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LIMIT = 4;
const WARNING = 'Redis is unavailable: rate limits are counted per process until it returns';
const RECOVERED = 'Redis is available again: rate limits are shared again';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis.stop());

async function startShared(): Promise<TestServer> {
  const server = await startTestServer({
    rateLimit: { limit: LIMIT, windowSeconds: 60 },
    redisUrl: redis.url,
  });
  await server.app.rateLimiter?.ready();
  return server;
}

async function pollUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('rate limits shared through Redis', () => {
  it('holds two instances to one budget per key', async () => {
    const [first, second] = await Promise.all([startShared(), startShared()]);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 2; i++) {
        const instance = i % 2 === 0 ? first : second;
        statuses.push((await instance.api('GET', '/v1/pets')).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('keeps serving on the in-process limit when Redis goes away, and says so once', async () => {
    // A fresh Redis, so this test's key starts with a full budget.
    await redis.stop();
    await redis.start();
    const server = await startShared();
    try {
      expect((await server.api('GET', '/v1/pets')).status).toBe(200);
      await redis.stop();

      // The process now counts alone, from zero: a full budget, then 429 again.
      const startedAt = performance.now();
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 1; i++)
        statuses.push((await server.api('GET', '/v1/pets')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      expect(performance.now() - startedAt).toBeLessThan(2_000);
      await pollUntil(() => server.logs.some((line) => line.msg === WARNING), 5_000);
      expect(server.logs.filter((line) => line.msg === WARNING)).toHaveLength(1);
      expect(server.logs.find((line) => line.msg === WARNING)?.level).toBe(40);

      await redis.start();
      await pollUntil(() => server.logs.some((line) => line.msg === RECOVERED), 10_000);
      expect(server.logs.filter((line) => line.msg === WARNING)).toHaveLength(1);
      expect((await server.api('GET', '/v1/pets')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
