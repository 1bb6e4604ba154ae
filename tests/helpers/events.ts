import type { IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import type { Conformance } from './conformance.js';
import { openStream, type SseStream } from './sse.js';

/** An event as `GET /v1/events` sends it in a frame's `data:`. */
export interface StreamedEvent {
  id: string;
  type: string;
  occurredAt: string;
  data: { id: number } & Record<string, unknown>;
  /** When the test received it (performance.now()); not part of the event. */
  receivedAt: number;
}

export interface EventFollower {
  stream: SseStream;
  /** Every event received so far, each checked against its frame and the Event schema. */
  events(): StreamedEvent[];
  /** Waits until `count` events arrived in all and returns the first `count`. */
  take(count: number, timeoutMs?: number): Promise<StreamedEvent[]>;
  /** Waits for the next event whose type and data id match, and returns every event up to it. */
  until(type: string, id: number, timeoutMs?: number): Promise<StreamedEvent[]>;
  close(): void;
}

export interface FollowOptions {
  /** Extra request headers (Last-Event-ID). */
  headers?: Record<string, string>;
  /** The API key; `null` sends none. */
  key?: string | null;
  /** How long the answer's head may take (openStream's default otherwise). */
  timeoutMs?: number;
}

export interface EventServer {
  origin: string;
  conformance: Conformance;
}

function requestHeaders(key: string | null, extra: Record<string, string> = {}) {
  return key === null ? extra : { authorization: `Bearer ${key}`, ...extra };
}

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

function parsedEvents(stream: SseStream, conformance: Conformance): StreamedEvent[] {
  return stream.frames.map((frame) => {
    const event = JSON.parse(frame.data) as Omit<StreamedEvent, 'receivedAt'>;
    conformance.checkSchema('/components/schemas/Event', event, `event ${frame.id ?? '?'}`);
    expect(frame.id, 'the frame id is the event id').toBe(event.id);
    expect(frame.event, 'the frame event is the event type').toBe(event.type);
    return { ...event, receivedAt: frame.receivedAt };
  });
}

/**
 * Opens `GET /v1/events<query>` and expects a stream: 200, `text/event-stream`. Every event it
 * yields is checked against its frame and the served document's Event schema.
 */
export async function followEvents(
  server: EventServer,
  key: string,
  query = '',
  options: FollowOptions = {},
): Promise<EventFollower> {
  const stream = await openStream(server.origin, `/v1/events${query}`, {
    headers: requestHeaders(options.key === undefined ? key : options.key, options.headers),
    timeoutMs: options.timeoutMs,
  });
  if (stream.status !== 200) {
    await stream.ended;
    expect.fail(`expected a stream, got ${stream.status}: ${stream.body}`);
  }
  expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(stream.headers['x-request-id']).toBeTruthy();
  const events = () => parsedEvents(stream, server.conformance);
  return {
    stream,
    events,
    take: async (count, timeoutMs) => {
      await stream.waitForFrames(count, timeoutMs);
      return events().slice(0, count);
    },
    until: async (type, id, timeoutMs = 5_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const all = events();
        const at = all.findIndex((event) => event.type === type && event.data.id === id);
        if (at !== -1) return all.slice(0, at + 1);
        const left = deadline - Date.now();
        if (left <= 0) expect.fail(`no ${type} of ${id} within ${timeoutMs} ms`);
        await stream.waitForFrames(all.length + 1, left);
      }
    },
    close: () => {
      stream.close();
    },
  };
}

/**
 * Opens `GET /v1/events<query>` expecting a refusal: its status, and the Error body checked
 * against the served document. Never a stream.
 */
export async function refusedStream(
  server: EventServer,
  key: string | null,
  query = '',
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: { code: string; message: string } }> {
  const stream = await openStream(server.origin, `/v1/events${query}`, {
    headers: requestHeaders(key, headers),
  });
  if (stream.status === 200) {
    stream.close();
    expect.fail(`expected a refusal, got a stream (${String(stream.headers['content-type'])})`);
  }
  await stream.ended;
  const result = {
    status: stream.status,
    headers: toHeaders(stream.headers),
    body: JSON.parse(stream.body) as { code: string; message: string },
  };
  server.conformance.check('GET', `${server.origin}/v1/events${query}`, result);
  return result;
}
