import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertPets } from '../../db/queries/pets.js';
import { createChangeNotifier, type ChangeNotifier } from '../../server/events/notifier.js';
import { EventStreams } from '../../server/events/streams.js';
import type { Subscription } from '../../server/events/subscription.js';
import { createLogger } from '../../server/process/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The streams' behaviour when a consumer falls behind, on the real event log: the consumer here
 * is the iterator itself, so "not reading" is exact (over a socket the kernel's buffers would
 * take megabytes first; tests/process/event-backpressure.test.ts covers that end to end).
 */
const QUEUE = 5;
const MAX_LAG_MS = 600;

let database: TestDatabase;
let notifier: ChangeNotifier;
let streams: EventStreams;

beforeAll(async () => {
  database = await createTestDatabase();
  const logger = createLogger('silent');
  notifier = createChangeNotifier(database.handle, logger);
  streams = new EventStreams({
    database: database.handle,
    logger,
    perKeyLimit: 10,
    maxQueued: QUEUE,
    maxLagMs: MAX_LAG_MS,
  });
});
afterAll(async () => {
  notifier.stop();
  await streams.close();
  await database.destroy();
});

/** Creates `count` pets in one statement, so their events reach the feed at once. */
async function createPets(count: number): Promise<number[]> {
  const created = await insertPets(
    database.handle.db,
    Array.from({ length: count }, (_, i) => ({
      name: `Lagging ${i}`,
      categoryId: 1,
      status: 'available' as const,
    })),
  );
  notifier.changed();
  return created.map((pet) => pet.id);
}

async function follow(): Promise<{ subscription: Subscription; cutOff: () => boolean }> {
  let cut = false;
  const subscription = await streams.subscribe({
    keyId: 'lagging-test',
    after: undefined,
    types: undefined,
    onCutOff: () => {
      cut = true;
    },
  });
  return { subscription, cutOff: () => cut };
}

async function take(subscription: Subscription, count: number): Promise<number[]> {
  const ids: number[] = [];
  while (ids.length < count) {
    const { value, done } = await subscription.next();
    if (done) break;
    ids.push((value.data as { id: number }).id);
  }
  return ids;
}

describe(`a stream whose queue (${QUEUE}) overflows`, () => {
  it('keeps a consumer that catches up, with every event once and in order, then live ones', async () => {
    const { subscription, cutOff } = await follow();
    const burst = await createPets(40);
    // Slower than the burst arrives, but within the lag allowed.
    await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS / 3));
    expect(await take(subscription, burst.length)).toEqual(burst);
    const live = await createPets(2);
    expect(await take(subscription, live.length)).toEqual(live);
    await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS * 1.5));
    expect(cutOff(), 'caught up in time: not cut off').toBe(false);
    await subscription.return();
  });

  it('cuts off a consumer that stays behind past the lag allowed, and frees its queue', async () => {
    const { subscription, cutOff } = await follow();
    await createPets(40);
    await vi.waitFor(
      () => {
        expect(cutOff()).toBe(true);
      },
      { timeout: MAX_LAG_MS * 5 },
    );
    await expect(subscription.next()).rejects.toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      message: expect.stringMatching(/behind .* resume from the last event id/) as string,
    });
  });
});
