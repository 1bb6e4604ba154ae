import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Logger } from '../process/logger.js';
import type { RateLimitPolicy } from './policy.js';
import { connectRedis } from './redis-health.js';

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

function resetSecondsOf(result: RateLimiterRes): number {
  return Math.max(1, Math.ceil(result.msBeforeNext / 1000));
}

/**
 * Fixed-window counting per bucket. With a Redis URL the counts live in Redis, so every process
 * and instance spends one budget; while Redis is gone or hangs (redis-health.ts), each process
 * counts in its own memory with the same policy, so requests keep flowing, and returns to the
 * shared count once Redis answers again.
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
  const shared = redis
    ? new RateLimiterRedis({ ...limits, storeClient: redis.client, rejectIfRedisNotReady: true })
    : undefined;

  /** A refusal is an answer too: only an error means the limiter could not count. */
  const consumeIn = async (limiter: RateLimiterAbstract, bucket: string, requests: number) => {
    try {
      return await limiter.consume(bucket, requests);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return rejection;
      throw rejection;
    }
  };

  /** The count and the limiter that kept it, so that a refund goes back to the same one. */
  const count = async (bucket: string, requests: number) => {
    if (shared && redis?.available()) {
      try {
        const result = await consumeIn(shared, bucket, requests);
        redis.succeeded();
        return { result, limiter: shared };
      } catch {
        redis.failed();
      }
    }
    return { result: await consumeIn(memory, bucket, requests), limiter: memory };
  };

  return {
    policy,
    consume: async (bucket, requests = 1) => {
      const { result, limiter } = await count(bucket, requests);
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
