import type { RateLimiter } from '../rate-limit/limiter.js';

/**
 * Failed authentications per client address, in a fixed window (AUTH_FAILURE_LIMIT), counted
 * where the key rate limit is (Redis when it is set). Keys are public in form and their
 * checksum is public too, so a well-formed forged key costs a database lookup that no key's
 * budget pays for: an address that has spent its failures gets no more lookups for keys this
 * process has never accepted until its window ends.
 */
export interface FailureBudget {
  /** Seconds until the address may try unknown keys again; undefined while it may. */
  exhausted(client: string): Promise<number | undefined>;
  record(client: string): Promise<void>;
}

export function createFailureBudget(limiter: RateLimiter): FailureBudget {
  return {
    exhausted: async (client) => {
      const { spent, resetSeconds } = await limiter.peek(client);
      return spent >= limiter.policy.limit ? resetSeconds : undefined;
    },
    record: async (client) => {
      await limiter.consume(client);
    },
  };
}
