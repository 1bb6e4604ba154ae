import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../process/logger.js';
import type { RateLimitPolicy } from './policy.js';

export type RateLimitOutcome =
  | { allowed: true; remaining: number; resetSeconds: number }
  | { allowed: false; remaining: 0; resetSeconds: number };

export interface RateLimiter {
  readonly policy: RateLimitPolicy;
  /** Counts `requests` against the bucket and says whether they may proceed. */
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

function outcomeOf(result: RateLimiterRes, allowed: boolean): RateLimitOutcome {
  const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  return allowed
    ? { allowed, remaining: result.remainingPoints, resetSeconds }
    : { allowed, remaining: 0, resetSeconds };
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
      try {
        return outcomeOf(await limiter.consume(bucket, requests), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return outcomeOf(rejection, false);
        throw rejection;
      }
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
