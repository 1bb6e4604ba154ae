import type { AttemptOutcome } from '../storage/attempts.js';
import { nextRetryIn, retryAfterSeconds } from './schedule.js';
import type { AttemptResult } from './sender.js';

/** What becomes of a delivery after an attempt, and whether its endpoint is disabled. */
export interface Verdict {
  outcome: AttemptOutcome;
  disable: boolean;
}

const WAIT_AS_TOLD = new Set([429, 503]);

/**
 * A 2xx succeeds; a 410 fails for good and disables the endpoint; anything else (3xx, other
 * statuses, timeouts, refused connections) is tried again on the schedule, no sooner than a
 * 429's or 503's Retry-After, until the schedule runs out.
 */
export function judgeAttempt(
  result: AttemptResult,
  attempts: number,
  delays: readonly number[],
): Verdict {
  const { status } = result;
  if (status !== null && status >= 200 && status < 300) {
    return {
      outcome: { status: 'succeeded', responseStatus: status, error: null },
      disable: false,
    };
  }
  const error =
    result.error ??
    (status !== null && status >= 300 && status < 400 ? 'redirect, not followed' : null);
  if (status === 410) {
    return { outcome: { status: 'failed', responseStatus: status, error }, disable: true };
  }
  const retryIn = nextRetryIn(attempts, delays);
  if (retryIn === undefined) {
    return { outcome: { status: 'failed', responseStatus: status, error }, disable: false };
  }
  const told =
    status !== null && WAIT_AS_TOLD.has(status) ? retryAfterSeconds(result.retryAfter) : 0;
  return {
    outcome: {
      status: 'pending',
      retryInSeconds: Math.max(retryIn, told),
      responseStatus: status,
      error,
    },
    disable: false,
  };
}
