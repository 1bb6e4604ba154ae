import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import { followEvents, type EventFollower, type EventServer } from '../helpers/events.js';
import { timedRequest } from '../helpers/timed-request.js';

/**
 * A server restarted or a network back: every browser's EventSource reconnects within the same
 * moment, all on the front-end's one key. Before acquires were batched, 1,000 opens queued a
 * transaction each on the key's lock and all of them failed with 503 (DATABASE_DEADLINE).
 */
const BROWSERS = 1_000;
const KEY = 'reconnect-storm-key-0123456789';
/**
 * Every stream must open, not within a latency: on a quiet machine 1,000 take about 2 s on
 * either database, and CI runs other servers beside this one on its two cores.
 */
const OPEN_TIMEOUT_MS = 45_000;

let database: ChildDatabase;
let server: ChildServer;
let at: EventServer;

beforeAll(async () => {
  database = await createChildDatabase();
  server = await spawnServer({
    ...database.env,
    API_KEYS: KEY,
    RATE_LIMIT: 'off',
    // Room for both rounds: the server may see a cut connection after its browser is back.
    EVENT_STREAMS_PER_KEY: String(2 * BROWSERS),
  });
  at = { origin: server.origin, conformance: await loadConformance(server.origin) };
});
afterAll(async () => {
  await server.stop();
  await database.destroy();
});

async function createPet(name: string): Promise<number> {
  const answer = await timedRequest(server.origin, '/v1/pets', {
    method: 'POST',
    key: KEY,
    body: { name, categoryId: 1 },
  });
  expect(answer.status, answer.body).toBe(201);
  return (JSON.parse(answer.body) as { id: number }).id;
}

/** Opens `count` streams at once; every one must open. */
async function openAll(count: number, lastEventId?: string): Promise<EventFollower[]> {
  const headers: Record<string, string> =
    lastEventId === undefined ? {} : { 'last-event-id': lastEventId };
  const settled = await Promise.allSettled(
    Array.from({ length: count }, () =>
      followEvents(at, KEY, '', { headers, timeoutMs: OPEN_TIMEOUT_MS }),
    ),
  );
  const failures = settled.flatMap((result) =>
    result.status === 'rejected' ? [String(result.reason)] : [],
  );
  const opened = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failures.length > 0) for (const follower of opened) follower.close();
  expect(failures.slice(0, 3), `${failures.length} of ${count} did not open`).toEqual([]);
  return opened;
}

describe(`${BROWSERS} browsers reconnecting at once on one key`, () => {
  it('all get their stream, and every one resumes with the change made while it was away', async () => {
    const first = await openAll(BROWSERS);
    const before = await createPet('before the cut');
    await Promise.all(first.map((follower) => follower.until('pet.created', before, 10_000)));
    const lastSeen = first[0]?.events().at(-1)?.id ?? '';
    // Every connection cut at once, and a change made before they are back.
    for (const follower of first) follower.close();
    const during = await createPet('while they were away');
    const again = await openAll(BROWSERS, lastSeen);
    try {
      await Promise.all(again.map((follower) => follower.until('pet.created', during, 10_000)));
      // Resumed after the last event seen: the change made while away once, nothing before it.
      for (const follower of again) {
        expect(follower.events().map((event) => event.data.id)).toEqual([during]);
      }
    } finally {
      for (const follower of again) follower.close();
    }
  }, 150_000);
});
