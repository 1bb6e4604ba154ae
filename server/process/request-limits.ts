import { createFailureBudget, type FailureBudget } from '../domain/auth/failure-budget.js';
import type { RateLimitSetting } from '../domain/rate-limit/policy.js';
import { createRateLimiter, type RateLimiter } from '../domain/rate-limit/limiter.js';
import { connectRedis } from '../domain/rate-limit/redis-health.js';
import type { Logger } from '../support/logger.js';

const DEFAULT_AUTH_FAILURE_LIMIT: RateLimitSetting = { limit: 30, windowSeconds: 60 };

export interface RequestLimitOptions {
  logger: Logger;
  rateLimit: RateLimitSetting;
  /** Failed authentications per client address before unknown keys get no lookup. */
  authFailureLimit?: RateLimitSetting | undefined;
  /** Shares the counts across processes; without it each process counts alone. */
  redisUrl?: string | undefined;
}

export interface RequestLimits {
  /** Each key's request budget; undefined when RATE_LIMIT is off. */
  rateLimiter: RateLimiter | undefined;
  /** Each client address's failed authentications; undefined when AUTH_FAILURE_LIMIT is off. */
  authFailures: FailureBudget | undefined;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/** The rate limit and the failed-authentication budget, sharing one Redis when given one. */
export function createRequestLimits(options: RequestLimitOptions): RequestLimits {
  const failureLimit = options.authFailureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT;
  const redis =
    options.redisUrl && (options.rateLimit !== 'off' || failureLimit !== 'off')
      ? connectRedis(options.redisUrl, options.logger)
      : undefined;
  const rateLimiter =
    options.rateLimit === 'off'
      ? undefined
      : createRateLimiter({ policy: options.rateLimit, keyPrefix: 'petstore:ratelimit', redis });
  const authFailures =
    failureLimit === 'off'
      ? undefined
      : createFailureBudget(
          createRateLimiter({ policy: failureLimit, keyPrefix: 'petstore:authfail', redis }),
        );
  return {
    rateLimiter,
    authFailures,
    close: async () => {
      await redis?.close();
    },
  };
}
