import { describe, expect, it } from 'vitest';
import { followEvents, refusedStream, type EventFollower } from '../helpers/events.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';
import { openStream, type SseStream } from '../helpers/sse.js';

const OTHER_KEY = 'test-key-other-0123456789';
const server = useTestServer({ eventStreamsPerKey: 2, apiKeys: [TEST_KEY, OTHER_KEY] });

/** `events.onChange` over tRPC's SSE, as httpSubscriptionLink opens it. */
function subscribe(origin: string, key: string, input?: unknown): Promise<SseStream> {
  const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  return openStream(origin, `/trpc/events.onChange${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
}

/** The error a tRPC subscription ended with (its `serialized-error` event). */
async function subscriptionError(stream: SseStream) {
  expect(stream.status).toBe(200);
  const frames = await stream.waitForFrames(2);
  expect(frames[0]?.event).toBe('connected');
  expect(frames[1]?.event).toBe('serialized-error');
  expect(await stream.ended).toBe('end');
  return JSON.parse(frames[1]?.data ?? '{}') as {
    code: number;
    message: string;
    data: { code: string; httpStatus: number };
  };
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) expect.fail(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether a stream opens for `key` now (it is closed again at once). */
async function opens(origin: string, key: string): Promise<boolean> {
  const attempt = await openStream(origin, '/v1/events', {
    headers: { authorization: `Bearer ${key}` },
  });
  attempt.close();
  return attempt.status === 200;
}

describe('open event streams per API key', () => {
  it('counts REST and tRPC together: past the limit REST is 429 with Retry-After, tRPC TOO_MANY_REQUESTS', async () => {
    const rest = await followEvents(server, TEST_KEY);
    const trpc = await subscribe(server.origin, TEST_KEY);
    let other: EventFollower | undefined;
    try {
      await trpc.waitForFrames(1);
      const refused = await refusedStream(server, TEST_KEY);
      expect([refused.status, refused.body.code]).toEqual([429, 'TOO_MANY_REQUESTS']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const refusedTrpc = await subscriptionError(await subscribe(server.origin, TEST_KEY));
      expect(refusedTrpc.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429 });
      // Another key has slots of its own.
      other = await followEvents(server, OTHER_KEY);
    } finally {
      rest.close();
      trpc.close();
      other?.close();
    }
  });

  it('gives a slot back when its stream closes', async () => {
    // The streams of the test before are closed, and their slots come back soon after.
    await eventually(() => opens(server.origin, TEST_KEY));
    const streams = [await followEvents(server, TEST_KEY), await followEvents(server, TEST_KEY)];
    try {
      expect((await refusedStream(server, TEST_KEY)).status).toBe(429);
      streams.shift()?.close();
      await eventually(() => opens(server.origin, TEST_KEY));
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

describe('keepalive comments', () => {
  it('opens with a comment and sends one at least every 15 s; tRPC pings as often', async () => {
    const rest = await followEvents(server, TEST_KEY);
    const trpc = await subscribe(server.origin, OTHER_KEY);
    try {
      expect(await rest.stream.waitForComment((text) => text === 'stream open', 1_000)).toBe(
        'stream open',
      );
      const opened = Date.now();
      await rest.stream.waitForComment((text) => text === 'keepalive', 16_000);
      await trpc.waitForFrames(2, 16_000);
      expect(Date.now() - opened).toBeLessThan(16_000);
      expect(trpc.frames.map((frame) => frame.event)).toEqual(['connected', 'ping']);
    } finally {
      rest.close();
      trpc.close();
    }
  }, 30_000);
});
