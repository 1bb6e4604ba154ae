import { afterAll, beforeAll } from 'vitest';
import { startTestRedis, type TestRedis } from './redis.js';
import { startTestServer, type TestServer } from './server.js';

export interface ServersSharingRedis {
  redis: TestRedis;
  first: TestServer;
  second: TestServer;
}

/**
 * A Redis of the file's own and two servers whose rate limits share it, as two instances of
 * one deployment do: started before the file's tests, stopped after them. The fields are set
 * once beforeAll ran.
 */
export function useServersSharingRedis(options: {
  apiKeys: string[];
  limit: number;
}): ServersSharingRedis {
  const shared = {} as ServersSharingRedis;
  const start = async () => {
    const server = await startTestServer({
      apiKeys: options.apiKeys,
      rateLimit: { limit: options.limit, windowSeconds: 60 },
      redisUrl: shared.redis.url,
    });
    await server.app.rateLimiter?.ready();
    return server;
  };
  beforeAll(async () => {
    shared.redis = await startTestRedis();
    shared.first = await start();
    shared.second = await start();
  });
  afterAll(async () => {
    // A test that froze Redis and failed must not leave the servers' shutdown waiting on it.
    shared.redis.thaw();
    await Promise.all([shared.first.close(), shared.second.close()]);
    await shared.redis.stop();
  });
  return shared;
}
