import { describe, expect, it } from 'vitest';
import {
  DATABASE_SHARE_WHILE_BUSY,
  DELIVERIES_PER_SECOND_WHILE_BUSY,
  JUDGE_EVERY_MS,
  requestsFirst,
} from '../../server/webhooks/domain/requests-first.js';
import type { DatabaseHandle } from '../../db/handle.js';
import { DatabaseWork } from '../../server/support/service-metrics.js';

/**
 * A pace on a clock the test moves, and an API that keeps `atOnce` requests on the database
 * for `busyMs` of every 10 ms.
 */
function paced(
  busyMs: number,
  atOnce = 1,
  { costMs = 0, store = 'postgres' }: { costMs?: number; store?: DatabaseHandle['kind'] } = {},
) {
  const work = new DatabaseWork(0);
  let now = 0;
  const pace = requestsFirst(work, store, () => now);
  /** Each look's allowance once the API was first judged. */
  const allowances = new Set<number>();
  return {
    allowances,
    /** Deliveries started over `seconds`, a look every 5 ms taking all it may. */
    startedOver(seconds: number): number {
      let started = 0;
      let pending = false;
      for (; now < seconds * 1000; now++) {
        // A request ends `busyMs` after it began, and the next begins on the next 10 ms.
        if (pending && now % 10 === busyMs % 10) {
          for (let i = 0; i < atOnce; i++) work.leave(now);
          pending = false;
        }
        if (!pending && busyMs > 0 && now % 10 === 0) {
          for (let i = 0; i < atOnce; i++) work.enter(now);
          pending = true;
        }
        if (now % 5 !== 0) continue;
        const allowed = pace.allowance(2_000);
        pace.spend(allowed);
        if (allowed > 0) pace.worked(allowed * costMs);
        started += allowed;
        if (now > JUDGE_EVERY_MS) allowances.add(allowed);
      }
      return started;
    },
  };
}

describe('deliveries give way to requests', () => {
  it('limits nothing while requests leave the database idle part of the time', () => {
    // Requests waiting on the database 7 ms of 10, and a burst of 20 at once 1 ms of 10.
    expect(paced(7).startedOver(1)).toBe(2_000 * 200);
    expect(paced(1, 20).startedOver(1)).toBe(2_000 * 200);
  });

  it('starts at most its rate, a batch at a time, while requests keep the database busy', () => {
    const busy = paced(10);
    const seconds = 2;
    const started = busy.startedOver(seconds);
    const batch = DELIVERIES_PER_SECOND_WHILE_BUSY / 10;
    // The first judgement comes after JUDGE_EVERY_MS: until then, all may start.
    const beforeJudged = (JUDGE_EVERY_MS / 5) * 2_000;
    expect(started - beforeJudged).toBeGreaterThanOrEqual(
      seconds * DELIVERIES_PER_SECOND_WHILE_BUSY - batch,
    );
    expect(started - beforeJudged).toBeLessThanOrEqual(
      seconds * DELIVERIES_PER_SECOND_WHILE_BUSY + batch,
    );
    expect([...busy.allowances].sort((a, b) => a - b)).toEqual([0, batch]);
  });

  it('lets their database work take at most its share of the time while requests are busy', () => {
    // Each delivery's claim and outcome take 2 ms of the database: the share binds before the rate.
    const costMs = 2;
    const busy = paced(10, 1, { costMs });
    const seconds = 2;
    const beforeJudged = (JUDGE_EVERY_MS / 5) * 2_000;
    const started = busy.startedOver(seconds) - beforeJudged;
    const batch = DELIVERIES_PER_SECOND_WHILE_BUSY / 10;
    const share = (seconds * 1000 * DATABASE_SHARE_WHILE_BUSY) / costMs;
    expect(started).toBeGreaterThanOrEqual(share - batch);
    expect(started).toBeLessThanOrEqual(share + batch);
  });

  it('judges the embedded store busy at the share a saturated API keeps there', () => {
    // On PGlite, creates from 50 connections kept requests on the database 38-80% of the
    // time: the rest of the one thread is their own work and the deliveries'.
    const seconds = 1;
    const beforeJudged = (JUDGE_EVERY_MS / 5) * 2_000;
    const embedded = paced(4, 1, { store: 'pglite' }).startedOver(seconds) - beforeJudged;
    expect(embedded).toBeLessThanOrEqual(seconds * DELIVERIES_PER_SECOND_WHILE_BUSY);
    // The same share on PostgreSQL leaves the database idle most of the time: nothing is held.
    expect(paced(4).startedOver(seconds)).toBe(2_000 * 200);
    // An embedded store whose requests leave it idle most of the time holds nothing back.
    expect(paced(1, 1, { store: 'pglite' }).startedOver(seconds)).toBe(2_000 * 200);
  });
});
