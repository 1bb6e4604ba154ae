import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import {
  createPostgresDatabase,
  testDatabaseTarget,
  describeOnPostgres,
} from '../helpers/database.js';
import { followEvents, refusedStream, type EventFollower } from '../helpers/events.js';
import { rawRequest } from '../helpers/http.js';
import { median } from '../helpers/load.js';

const KEY = 'fanout-test-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };
const target = testDatabaseTarget();
/** The contract: a change reaches the subscribers of every process within 1 s. */
const WITHIN_MS = 1_000;

/** Creates a pet through `origin` on a connection of its own; its id and when the 201 came. */
async function createThrough(origin: string, name: string) {
  const response = await rawRequest(origin, '/v1/pets', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 2 }),
  });
  expect(response.status).toBe(201);
  return { id: (JSON.parse(response.body) as { id: number }).id, answeredAt: performance.now() };
}

/**
 * Makes `count` changes one after another through `origin` and waits for each on every
 * follower; returns how long after each 201 each follower had it, in ms.
 */
async function latencies(origin: string, followers: EventFollower[], count: number) {
  const measured: number[] = [];
  for (let i = 0; i < count; i++) {
    const { id, answeredAt } = await createThrough(origin, `Fan-out ${i}`);
    for (const follower of followers) {
      const received = await follower.until('pet.created', id, 5_000);
      measured.push(Math.max(0, (received.at(-1)?.receivedAt ?? Infinity) - answeredAt));
    }
  }
  return measured;
}

const report = (label: string, values: number[]) => {
  const max = Math.max(...values);
  console.info(
    `${label}: ${values.length} deliveries, median ${median(values).toFixed(1)} ms, max ${max.toFixed(1)} ms`,
  );
  return max;
};

/** Several processes need a shared server; the embedded database serves one process only. */
describeOnPostgres('events across processes on PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    if (target.kind !== 'postgres') return;
    ({ url, drop } = await createPostgresDatabase(target));
  });
  afterAll(() => drop());

  it('WORKERS=2: every stream, on either worker, receives every change within 1 s', async () => {
    const streams = 6;
    const server = await spawnServer(
      {
        DATABASE_URL: url,
        API_KEYS: KEY,
        WORKERS: '2',
        RATE_LIMIT: 'off',
        EVENT_STREAMS_PER_KEY: String(streams),
      },
      { listeners: 2 },
    );
    const followers: EventFollower[] = [];
    try {
      const conformance = await loadConformance(server.origin);
      const at = { origin: server.origin, conformance };
      // Each on a connection of its own: the cluster hands connections out in turn.
      for (let i = 0; i < streams; i++) {
        followers.push(
          await followEvents(at, KEY, '', { headers: { 'x-request-id': `fanout-${i}` } }),
        );
      }
      const max = report('WORKERS=2', await latencies(server.origin, followers, 10));
      expect(max).toBeLessThan(WITHIN_MS);
      // The limit counts the streams of both workers together.
      expect((await refusedStream(at, KEY)).status).toBe(429);
      // Open streams end at SIGTERM: they do not hold shutdown for its 10 s budget.
      const stopping = performance.now();
      await server.stop();
      const stopMs = performance.now() - stopping;
      console.info(
        `WORKERS=2 with ${streams} open streams: SIGTERM to exit ${stopMs.toFixed(0)} ms`,
      );
      expect(stopMs).toBeLessThan(5_000);
    } finally {
      await server.stop();
    }
    expect((await server.exited).code).toBe(0);
    for (const follower of followers) expect(await follower.stream.ended).toBe('end');
    // Each stream's request is logged by the worker that served it when it ends.
    const ids = new Set(followers.map((_, i) => `fanout-${i}`));
    const pids = new Set(
      server.logs.filter((line) => ids.has(line.reqId as string)).map((line) => line.pid),
    );
    expect(pids.size).toBe(2);
  }, 90_000);

  it('two instances on one database: a change through one reaches the other within 1 s', async () => {
    const env = { DATABASE_URL: url, API_KEYS: KEY, RATE_LIMIT: 'off' };
    const [first, second] = await Promise.all([spawnServer(env), spawnServer(env)]);
    const followers: EventFollower[] = [];
    try {
      for (const server of [first, second]) {
        const conformance = await loadConformance(server.origin);
        followers.push(await followEvents({ origin: server.origin, conformance }, KEY));
      }
      const [onFirst, onSecond] = followers as [EventFollower, EventFollower];
      const there = report(
        'through the second, on the first',
        await latencies(second.origin, [onFirst], 15),
      );
      const back = report(
        'through the first, on the second',
        await latencies(first.origin, [onSecond], 15),
      );
      expect(Math.max(there, back)).toBeLessThan(WITHIN_MS);
      // Both saw the same log: every event, in the same order.
      const seen = (follower: EventFollower) => follower.events().map((event) => event.id);
      await onSecond.take(30);
      await onFirst.take(30);
      expect(seen(onFirst).slice(0, 30)).toEqual(seen(onSecond).slice(0, 30));
    } finally {
      for (const follower of followers) follower.close();
      await Promise.all([first.stop(), second.stop()]);
    }
  }, 90_000);
});
