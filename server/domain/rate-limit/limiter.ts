import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { RateLimitPolicy } from './policy.js';
import type { RedisHealth } from './redis-health.js';

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
  /** What the bucket has spent in its window, without spending. */
  peek(bucket: string): Promise<{ spent: number; resetSeconds: number }>;
}

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
  /** Keeps one kind of count apart from another in Redis. */
  keyPrefix: string;
  redis?: RedisHealth | undefined;
}): RateLimiter {
  const { policy, redis } = options;
  const limits = {
    points: policy.limit,
    duration: policy.windowSeconds,
    keyPrefix: options.keyPrefix,
  };
  const memory = new RateLimiterMemory(limits);
  const shared = redis
    ? new RateLimiterRedis({ ...limits, storeClient: redis.client, rejectIfRedisNotReady: true })
    : undefined;

  /** Redis while it answers, else this process's own count; a failed call counts against Redis. */
  const withLimiter = async <T>(use: (limiter: RateLimiterAbstract) => Promise<T>) => {
    if (shared && redis?.available()) {
      try {
        const value = await use(shared);
        redis.succeeded();
        return { value, limiter: shared as RateLimiterAbstract };
      } catch {
        redis.failed();
      }
    }
    return { value: await use(memory), limiter: memory as RateLimiterAbstract };
  };

  /** A refusal is an answer too: only an error means the limiter could not count. */
  const consumeIn = async (limiter: RateLimiterAbstract, bucket: string, requests: number) => {
    try {
      return await limiter.consume(bucket, requests);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return rejection;
      throw rejection;
    }
  };

  return {
    policy,
    consume: async (bucket, requests = 1) => {
      // The limiter that counted is kept, so that a refund goes back to the same one.
      const { value: result, limiter } = await withLimiter((limiter) =>
        consumeIn(limiter, bucket, requests),
      );
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
    peek: async (bucket) => {
      const { value } = await withLimiter((limiter) => limiter.get(bucket));
      return value
        ? { spent: value.consumedPoints, resetSeconds: resetSecondsOf(value) }
        : { spent: 0, resetSeconds: policy.windowSeconds };
    },
  };
}
