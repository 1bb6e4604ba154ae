import type { DatabaseWork } from '../../support/service-metrics.js';

/** Requests waiting on the database from which the API counts as busy. */
export const BUSY_REQUESTS = 8;
/** Deliveries a process starts a second while the API is busy. */
export const DELIVERIES_PER_SECOND_WHILE_BUSY = 200;
/** While busy, the worker looks this often, taking a tenth of a second's deliveries at most. */
const LOOK_WHILE_BUSY_MS = 50;

/**
 * Deliveries give way to the API's requests: while BUSY_REQUESTS or more have waited on the
 * database at once since its last look, a process starts at most
 * DELIVERIES_PER_SECOND_WHILE_BUSY deliveries a second (a token bucket holding a tenth of a
 * second's), so a burst of writes keeps the machine and the deliveries catch up after it. A
 * rate rather than a count in flight: slow endpoints holding their slots never take a healthy
 * endpoint's turn.
 */
export function requestsFirst(work: DatabaseWork, now: () => number = () => performance.now()) {
  const burst = DELIVERIES_PER_SECOND_WHILE_BUSY / 10;
  let tokens = burst;
  let at = now();
  const refill = () => {
    const time = now();
    tokens = Math.min(burst, tokens + ((time - at) / 1000) * DELIVERIES_PER_SECOND_WHILE_BUSY);
    at = time;
  };
  // A count taken at a look is biased: looks run when the database answers, just as the
  // requests it answered leave. The peak since the last look is not.
  let busy = false;
  return {
    /** How many of `wanted` deliveries may start now. */
    allowance: (wanted: number): number => {
      busy = work.takePeak() >= BUSY_REQUESTS;
      if (!busy) return wanted;
      refill();
      return Math.min(wanted, Math.floor(tokens));
    },
    /** `count` deliveries started. */
    spend: (count: number): void => {
      if (busy) tokens -= count;
    },
    /**
     * When to look again while busy: every look is a claim statement whatever it takes, so a
     * look every 5 ms for one delivery cost the database more than the deliveries did.
     */
    nextInMs: (): number => LOOK_WHILE_BUSY_MS,
  };
}
