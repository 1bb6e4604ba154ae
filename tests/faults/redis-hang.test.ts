import { describe, expect, it, vi } from 'vitest';
import {
  REDIS_BACK,
  REDIS_FAILURES_BEFORE_OUTAGE,
  REDIS_LOST,
  REDIS_PROBE_INTERVAL_MS,
} from '../../server/domain/rate-limit/redis-health.js';
import { useServersSharingRedis } from '../helpers/shared-redis.js';
import { TEST_KEY, type TestServer } from '../helpers/server.js';
import { timedRequest } from '../helpers/timed-request.js';

const LIMIT = 30;
const HUNG_KEY = 'test-key-redis-hung';
const SHARED_KEY = 'test-key-redis-shared';
/** Well under the 250 ms a request waits for a Redis that does not answer. */
const FAST_MS = 120;

const servers = useServersSharingRedis({ apiKeys: [TEST_KEY, HUNG_KEY, SHARED_KEY], limit: LIMIT });

function timedList(server: TestServer, key: string) {
  return timedRequest(server.origin, '/v1/pets?limit=1', { key, conformance: server.conformance });
}

describe('a Redis that hangs with its connections open (SIGSTOP)', () => {
  it('costs a few requests its timeout, then none; says so once; shares counts again once it answers', async ({
    annotate,
  }) => {
    expect((await timedList(servers.first, HUNG_KEY)).status).toBe(200);
    // Only what this outage logs: a start-up on a loaded machine may have seen its own.
    const logged = servers.first.logs.length;
    const since = () => servers.first.logs.slice(logged);
    const lines = (msg: string) => since().filter((line) => line.msg === msg);

    servers.redis.freeze();
    const during = [];
    for (let i = 0; i < REDIS_FAILURES_BEFORE_OUTAGE + 7; i++) {
      during.push(await timedList(servers.first, HUNG_KEY));
    }
    expect(during.map((outcome) => outcome.status)).toEqual(during.map(() => 200));
    const waited = during.slice(0, REDIS_FAILURES_BEFORE_OUTAGE);
    const after = during.slice(REDIS_FAILURES_BEFORE_OUTAGE);
    expect(Math.min(...waited.map((outcome) => outcome.ms))).toBeGreaterThanOrEqual(200);
    const sorted = after.map((outcome) => outcome.ms).sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(FAST_MS);

    // Background probes keep asking while it hangs, and none of them writes a line. The wait is
    // the point: three probe intervals pass, and nothing more may be logged in them.
    await new Promise((resolve) => setTimeout(resolve, 3 * REDIS_PROBE_INTERVAL_MS));
    expect(lines(REDIS_LOST)).toHaveLength(1);
    expect(lines(REDIS_LOST)[0]).toMatchObject({ level: 40, reason: 'not answering' });
    expect(since().filter((line) => Number(line.level) >= 40)).toHaveLength(1);

    servers.redis.thaw();
    await vi.waitFor(
      () => {
        expect(lines(REDIS_BACK).length).toBeGreaterThan(0);
      },
      {
        timeout: 5 * REDIS_PROBE_INTERVAL_MS,
        interval: 50,
      },
    );
    expect(lines(REDIS_LOST)).toHaveLength(1);
    expect(lines(REDIS_BACK)).toHaveLength(1);

    // Shared again: two instances spend one budget, so the request after it is refused.
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      statuses.push((await timedList(i % 2 ? servers.second : servers.first, SHARED_KEY)).status);
    }
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(200), 429]);
    await annotate(
      `hung Redis: ${waited.map((o) => Math.round(o.ms)).join(', ')} ms, then median ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms`,
    );
  }, 60_000);
});
