import { describe, expect, it } from 'vitest';
import { followEvents } from '../helpers/events.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

/** A queue far smaller than one burst, so that every burst overflows it. */
const BUFFER = 5;
const server = useTestServer({ eventStreamBuffer: BUFFER });

/** Creates `count` pets in one tRPC batch: one statement, so their events reach the feed at once. */
async function createBatch(count: number, name: string): Promise<number[]> {
  const path = Array(count).fill('pets.create').join(',');
  const input = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [i, { name: `${name} ${i}`, categoryId: 1 }]),
  );
  const response = await fetch(`${server.origin}/trpc/${path}?batch=1`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  expect(response.status).toBe(200);
  const answers = (await response.json()) as { result: { data: { id: number } } }[];
  return answers.map((answer) => answer.result.data.id);
}

describe(`a stream whose queue (${BUFFER} events) overflows in a burst`, () => {
  it('keeps its client, which reads the log at its own pace and gets every event once, in order', async () => {
    const follower = await followEvents(server, TEST_KEY);
    try {
      const first = await createBatch(20, 'Burst one');
      const second = await createBatch(20, 'Burst two');
      const ids = [...first, ...second];
      const last = ids.at(-1) ?? 0;
      const received = await follower.until('pet.created', last);
      expect(received.map((event) => event.data.id)).toEqual(ids);

      // Live again after catching up: the next change arrives on the same stream.
      const [after] = await createBatch(1, 'After the bursts');
      const [next] = (await follower.until('pet.created', after ?? 0)).slice(ids.length);
      expect(next?.data.id).toBe(after);
    } finally {
      follower.close();
    }
  });
});
