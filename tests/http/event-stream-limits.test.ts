import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { followEvents, refusedStream, type EventFollower } from '../helpers/events.js';
import { TEST_KEY, startTestServer, useTestServer } from '../helpers/server.js';
import { openStream, type SseStream } from '../helpers/sse.js';

/**
 * A key per test: a closed stream's slot comes back a moment after the close, so tests that
 * shared a key would meet the slots of the test before.
 */
const KEYS = {
  full: 'streams-key-full-0123456789',
  other: 'streams-key-other-0123456789',
  release: 'streams-key-release-0123456789',
  keepalive: 'streams-key-keepalive-0123456789',
  abandoned: 'streams-key-abandoned-0123456789',
};
const server = useTestServer({ eventStreamsPerKey: 2, apiKeys: Object.values(KEYS) });

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

function eventually(check: () => Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  return vi.waitFor(
    async () => {
      expect(await check()).toBe(true);
    },
    { timeout: timeoutMs, interval: 50 },
  );
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
    const rest = await followEvents(server, KEYS.full);
    const trpc = await subscribe(server.origin, KEYS.full);
    let other: EventFollower | undefined;
    try {
      await trpc.waitForFrames(1);
      const refused = await refusedStream(server, KEYS.full);
      expect([refused.status, refused.body.code]).toEqual([429, 'TOO_MANY_REQUESTS']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const refusedTrpc = await subscriptionError(await subscribe(server.origin, KEYS.full));
      expect(refusedTrpc.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429 });
      // Another key has slots of its own.
      other = await followEvents(server, KEYS.other);
    } finally {
      rest.close();
      trpc.close();
      other?.close();
    }
  });

  it('gives a slot back when its stream closes', async () => {
    const streams = [
      await followEvents(server, KEYS.release),
      await followEvents(server, KEYS.release),
    ];
    try {
      expect((await refusedStream(server, KEYS.release)).status).toBe(429);
      streams.shift()?.close();
      await eventually(() => opens(server.origin, KEYS.release));
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

/** Sends GET /v1/events (resuming, so the open reads the log) and leaves after `delayMs`. */
function abandonedOpen(origin: string, key: string, delayMs: number): Promise<void> {
  const { port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => {
      socket.write(
        `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nLast-Event-ID: 0\r\n\r\n`,
      );
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, delayMs);
    });
  });
}

describe('a client that leaves while its stream opens', () => {
  it('gives its slot back', async () => {
    for (let i = 0; i < 10; i++) await abandonedOpen(server.origin, KEYS.abandoned, i % 3);
    // Both slots come back: none stays with a connection that is gone.
    await eventually(async () => {
      const both = [
        await openStream(server.origin, '/v1/events', {
          headers: { authorization: `Bearer ${KEYS.abandoned}` },
        }),
        await openStream(server.origin, '/v1/events', {
          headers: { authorization: `Bearer ${KEYS.abandoned}` },
        }),
      ];
      for (const stream of both) stream.close();
      return both.every((stream) => stream.status === 200);
    });
  });
});

describe('keepalive comments', () => {
  it('opens with a comment and sends one at least every 15 s; tRPC pings as often', async () => {
    const rest = await followEvents(server, KEYS.keepalive);
    const trpc = await subscribe(server.origin, KEYS.keepalive);
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

describe('closing the app', () => {
  it('ends open streams promptly with their last chunk: REST cleanly, tRPC with a retryable 503', async () => {
    const own = await startTestServer();
    const rest = await followEvents(own, TEST_KEY);
    // tRPC answers `connected` once the subscription is in place.
    const trpc = await subscribe(own.origin, TEST_KEY);
    await trpc.waitForFrames(1);
    const started = Date.now();
    // The default grace (10 s) would cut connections still open then: close must not wait for it.
    await own.app.close();
    const closeMs = Date.now() - started;
    await own.database.destroy();
    expect(await rest.stream.ended).toBe('end');
    const error = await subscriptionError(trpc);
    expect(error.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
    expect(closeMs).toBeLessThan(2_000);
    expect(own.logs.filter((line) => line.level === 50)).toEqual([]);
  });

  it('does not wait for a stream that was opening while it closed', async () => {
    const own = await startTestServer();
    const arrived = new Promise((resolve) => own.app.server.once('request', resolve));
    const opening = subscribe(own.origin, TEST_KEY).catch((error: unknown) => error);
    // Its request is in and its answer not yet: the stream is opening.
    await arrived;
    const started = Date.now();
    await own.app.close();
    const closeMs = Date.now() - started;
    await own.database.destroy();
    const stream = await opening;
    if (!(stream instanceof Error)) expect(await (stream as SseStream).ended).toBe('end');
    expect(closeMs).toBeLessThan(2_000);
  });
});
