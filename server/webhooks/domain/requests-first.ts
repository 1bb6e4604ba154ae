import type { DatabaseHandle } from '../../../db/handle.js';
import type { DatabaseWork } from '../../support/service-metrics.js';

/**
 * The share of the time with requests pending on the database from which the API is busy, by
 * store. On PostgreSQL a saturated API keeps some request waiting nearly all the time (96-100%
 * under creates from 50 connections). On the embedded store a request's statements run on the
 * service's one thread, between its own work and the deliveries', and the same creates kept
 * requests pending 38-80% of the time: there a fifth of it is busy.
 */
export const BUSY_SHARE: Record<DatabaseHandle['kind'], number> = { postgres: 0.8, pglite: 0.2 };
/** Deliveries a process starts a second while the API is busy. */
export const DELIVERIES_PER_SECOND_WHILE_BUSY = 200;
/**
 * The share of the time the deliveries' own database work (claims, outcomes) may take while the
 * API is busy: on the embedded store it runs on the requests' one connection and thread, where
 * a delivery costs about what a create does, so a count alone let them take most of it.
 */
export const DATABASE_SHARE_WHILE_BUSY = 0.1;
/**
 * How long the API's load is measured over before it is judged again: looks run after every
 * finished delivery and every commit, and a window of one look to the next, often under a
 * millisecond, mostly saw no request waiting even on a busy API.
 */
export const JUDGE_EVERY_MS = 50;
/** While busy, the worker looks this often, taking a tenth of a second's deliveries at most. */
const LOOK_WHILE_BUSY_MS = 50;

/**
 * Deliveries give way to the API's requests: while some request waited on the database for
 * the store's BUSY_SHARE or more of the last JUDGE_EVERY_MS, a process starts at most
 * DELIVERIES_PER_SECOND_WHILE_BUSY deliveries a second, a tenth of a second's at a time (a
 * token bucket), and their claims and outcomes take at most DATABASE_SHARE_WHILE_BUSY of the
 * time, so a burst of writes keeps the machine and the deliveries catch up after it.
 * A share of the time, not the most requests at once: a steady load arrives in bursts of a few
 * milliseconds, which a peak reads as busy. A rate rather than a count in flight: slow
 * endpoints holding their slots never take a healthy endpoint's turn.
 */
export function requestsFirst(
  work: DatabaseWork,
  store: DatabaseHandle['kind'],
  now: () => number = () => performance.now(),
) {
  const busyShare = BUSY_SHARE[store];
  const burst = DELIVERIES_PER_SECOND_WHILE_BUSY / 10;
  let tokens = burst;
  // Milliseconds of database work the deliveries may still take while busy: a tenth of a
  // second's share at most, so a quiet spell is not saved up for the next burst.
  const workBurstMs = DATABASE_SHARE_WHILE_BUSY * 100;
  let workMs = workBurstMs;
  let at = now();
  let judgedAt = at;
  let busy = false;
  const refill = (time: number) => {
    tokens = Math.min(burst, tokens + ((time - at) / 1000) * DELIVERIES_PER_SECOND_WHILE_BUSY);
    workMs = Math.min(workBurstMs, workMs + (time - at) * DATABASE_SHARE_WHILE_BUSY);
    at = time;
  };
  return {
    /** How many of `wanted` deliveries may start now. */
    allowance: (wanted: number): number => {
      const time = now();
      if (time - judgedAt >= JUDGE_EVERY_MS) {
        busy = work.takeBusyShare(time) >= busyShare;
        judgedAt = time;
      }
      refill(time);
      if (!busy) return wanted;
      // A batch at a time: a claim is one statement whatever it takes, and commits wake the
      // worker thousands of times a second, so claiming each token as it came made one
      // statement a delivery.
      const batch = Math.min(wanted, burst);
      return tokens >= batch && workMs > 0 ? batch : 0;
    },
    /** `count` deliveries started. */
    spend: (count: number): void => {
      if (busy) tokens -= count;
    },
    /** The deliveries' database work took `ms` (a claim, a batch of outcomes). */
    worked: (ms: number): void => {
      if (busy) workMs -= ms;
    },
    /**
     * When to look again while busy: every look is a claim statement whatever it takes, so a
     * look every 5 ms for one delivery cost the database more than the deliveries did.
     */
    nextInMs: (): number => LOOK_WHILE_BUSY_MS,
  };
}
