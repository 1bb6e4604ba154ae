import { describe, expect, it, vi } from 'vitest';
import type { Subscription } from '../../server/domain/events/subscription.js';
import { useEventStreams } from '../helpers/event-streams.js';

/**
 * The streams' behaviour when a consumer falls behind, on the real event log: the consumer here
 * is the iterator itself, so "not reading" is exact (over a socket the kernel's buffers would
 * take megabytes first; tests/process/event-backpressure.test.ts covers that end to end).
 */
const QUEUE = 5;
const MAX_LAG_MS = 600;

const underTest = useEventStreams({ maxQueued: QUEUE, maxLagMs: MAX_LAG_MS });
const { createPets } = underTest;

async function follow(): Promise<{ subscription: Subscription; cutOff: () => boolean }> {
  let cut = false;
  const subscription = await underTest.streams.subscribe({
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
    ids.push(value.data.id);
  }
  return ids;
}

describe(`a stream whose queue (${QUEUE}) overflows`, () => {
  it('keeps a consumer that catches up, with every event once and in order, then live ones', async () => {
    const { subscription, cutOff } = await follow();
    const burst = await createPets(40);
    // The consumer's own slowness (the point of the test): slower than the burst arrives, but
    // within the lag allowed.
    await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS / 3));
    expect(await take(subscription, burst.length)).toEqual(burst);
    const live = await createPets(2);
    expect(await take(subscription, live.length)).toEqual(live);
    // Longer than the lag allowed, in which a consumer that caught up must not be cut off.
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
      kind: 'too-many-requests',
      message: expect.stringMatching(/behind .* resume from the last event id/) as string,
    });
  });
});
