import { TRPCError } from '@trpc/server';
import type { RateLimiter } from '../../../domain/rate-limit/limiter.js';
import { rateLimitFields } from '../../../domain/rate-limit/policy.js';
import type { RequestState } from './request-state.js';

/**
 * Spends `calls` requests of the key's budget before any of them runs: a tRPC batch counts
 * every call in it, and one that would overspend is refused whole. The fields go on
 * `state.headers`, so the answer carries them whatever it turns out to be, 429 included.
 */
export async function enforceRateLimit(
  limiter: RateLimiter | undefined,
  keyId: string,
  calls: number,
  state: RequestState,
  refusals: { inc(): void },
): Promise<void> {
  if (!limiter) return;
  const outcome = await limiter.consume(keyId, calls);
  Object.assign(
    state.headers,
    rateLimitFields(limiter.policy, outcome.remaining, outcome.resetSeconds),
  );
  if (outcome.allowed) return;
  state.headers['retry-after'] = String(outcome.resetSeconds);
  refusals.inc();
  const batch = calls === 1 ? '' : ` (this batch counts ${calls} calls)`;
  throw new TRPCError({
    code: 'TOO_MANY_REQUESTS',
    message: `Rate limit of ${limiter.policy.limit} requests per ${limiter.policy.windowSeconds} s exceeded for API key ${keyId}${batch}; retry after ${outcome.resetSeconds} s`,
  });
}
