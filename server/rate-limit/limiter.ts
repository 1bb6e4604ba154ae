import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../process/logger.js';
import type { RateLimitPolicy } from './policy.js';

export type RateLimitOutcome =
  | { allowed: true; remaining: number; resetSeconds: number }
  | { allowed: false; remaining: number; resetSeconds: number };

export interface RateLimiter {
  readonly policy: RateLimitPolicy;
  /**
   * Counts `requests` against the bucket and says whether they may all proceed. Refused, they
   * spend nothing that was left: a batch larger than the rest of the budget leaves it whole.
   */
  consume(bucket: string, requests?: number): Promise<RateLimitOutcome>;
  /**
   * Resolves once Redis is connected (at once without Redis). Until then requests are counted
   * in process; tests that need the shared count from the first request wait for this.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const KEY_PREFIX = 'petstore:ratelimit';
/** A hung Redis must cost a request at most this much before the in-process limit takes over. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
const REDIS_MAX_RECONNECT_DELAY_MS = 2_000;

function resetSecondsOf(result: RateLimiterRes): number {
  return Math.max(1, Math.ceil(result.msBeforeNext / 1000));
}

/**
 * Fixed-window counting per bucket. With a Redis URL the counts live in Redis, so every process
 * and instance spends one budget; when Redis cannot answer, each process falls back to its own
 * in-memory count (the insurance limiter) so requests keep flowing, and returns to the shared
 * count once Redis is back.
 */
export function createRateLimiter(options: {
  policy: RateLimitPolicy;
  redisUrl?: string | undefined;
  logger: Logger;
}): RateLimiter {
  const { policy, logger } = options;
  const limits = { points: policy.limit, duration: policy.windowSeconds, keyPrefix: KEY_PREFIX };
  const memory = new RateLimiterMemory(limits);
  const redis = options.redisUrl ? connectRedis(options.redisUrl, logger) : undefined;
  const limiter = redis
    ? new RateLimiterRedis({
        ...limits,
        storeClient: redis.client,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      })
    : memory;

  return {
    policy,
    consume: async (bucket, requests = 1) => {
      let result: RateLimiterRes;
      try {
        result = await limiter.consume(bucket, requests);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        result = rejection;
      }
      const resetSeconds = resetSecondsOf(result);
      if (result.consumedPoints <= policy.limit) {
        return { allowed: true, remaining: result.remainingPoints, resetSeconds };
      }
      // rate-limiter-flexible has added the points before refusing. Give back what a refused
      // batch took from a budget that still had room, so the calls left stay usable; a request
      // refused at zero took nothing, and costs no second round trip.
      const left = policy.limit - (result.consumedPoints - requests);
      if (left > 0) {
        // Failing to give them back only makes the count stricter until the window ends.
        await limiter.reward(bucket, requests).catch(() => undefined);
      }
      return { allowed: false, remaining: Math.max(0, left), resetSeconds };
    },
    ready: () =>
      !redis || redis.client.status === 'ready'
        ? Promise.resolve()
        : new Promise((resolve) => {
            redis.client.once('ready', resolve);
          }),
    close: () => redis?.close() ?? Promise.resolve(),
  };
}

/** Fails fast while Redis is away, keeps reconnecting, and says so once per outage. */
function connectRedis(url: string, logger: Logger): { client: Redis; close(): Promise<void> } {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
  });
  let available = true;
  let closing = false;
  const lost = (err?: Error) => {
    if (!available || closing) return;
    available = false;
    logger.warn(
      { err },
      'Redis is unavailable: rate limits are counted per process until it returns',
    );
  };
  redis.on('error', lost);
  redis.on('close', () => {
    lost();
  });
  redis.on('ready', () => {
    if (available) return;
    available = true;
    logger.info('Redis is available again: rate limits are shared again');
  });
  return {
    client: redis,
    close: async () => {
      closing = true;
      await redis.quit().catch(() => {
        redis.disconnect();
      });
    },
  };
}
