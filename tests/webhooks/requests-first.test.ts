import { describe, expect, it } from 'vitest';
import {
  BUSY_REQUESTS,
  DELIVERIES_PER_SECOND_WHILE_BUSY,
  requestsFirst,
} from '../../server/webhooks/domain/requests-first.js';
import { DatabaseWork } from '../../server/support/service-metrics.js';

/** A pace on a clock the test moves, with `active` requests waiting on the database. */
function paced(active: number) {
  const work = new DatabaseWork();
  for (let i = 0; i < active; i++) work.enter();
  let now = 0;
  return {
    pace: requestsFirst(work, () => now),
    work,
    after: (ms: number) => {
      now += ms;
    },
  };
}

/** Deliveries started over `seconds`, a look every 5 ms taking all it may. */
function startedOver(seconds: number, { pace, after }: ReturnType<typeof paced>): number {
  let started = 0;
  for (let ms = 0; ms < seconds * 1000; ms += 5) {
    const allowed = pace.allowance(2_000);
    pace.spend(allowed);
    started += allowed;
    after(5);
  }
  return started;
}

describe('deliveries give way to requests', () => {
  it('limits nothing while few requests wait on the database', () => {
    expect(startedOver(1, paced(BUSY_REQUESTS - 1))).toBe(2_000 * 200);
  });

  it('starts at most its rate while the API is busy, and all again once it is not', () => {
    const busy = paced(BUSY_REQUESTS);
    const started = startedOver(2, busy);
    const burst = DELIVERIES_PER_SECOND_WHILE_BUSY / 10;
    expect(started).toBeGreaterThanOrEqual(2 * DELIVERIES_PER_SECOND_WHILE_BUSY - burst);
    expect(started).toBeLessThanOrEqual(2 * DELIVERIES_PER_SECOND_WHILE_BUSY + burst);
    for (let i = 0; i < BUSY_REQUESTS; i++) busy.work.leave();
    busy.pace.allowance(2_000);
    // The next look's window saw no request at all.
    expect(busy.pace.allowance(2_000)).toBe(2_000);
  });
});
