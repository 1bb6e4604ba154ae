import type { ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { isFeedBatch } from '../../../domain/events/feed.js';
import type { EventBody } from '../../../domain/schemas/event.js';
import { validate } from '../../../domain/schemas/validate.js';
import { KeyRevokedError } from '../../../domain/events/key-watch.js';
import { openWithin } from '../../../domain/events/streams.js';
import type { EventRun } from '../../../domain/events/subscription.js';
import { requireCaller } from '../../../operations/context.js';
import type { RestBinding, StreamOperation } from '../../../operations/define.js';
import type { Call, Endpoint } from '../pipeline/endpoint.js';
import { checkedQuery } from './input.js';

/** At least this often a comment line, so that idle connections stay open through proxies. */
export const KEEPALIVE_MS = 15_000;

// `ticket` was read by authentication, which refused a repeated one.
const QuerySchema = z.strictObject({
  after: z.string().optional(),
  types: z.string().optional(),
  ticket: z.string().optional(),
});

/** The query (`after`, `types`) and `Last-Event-ID` as the stream's input; the header wins. */
function inputOf(stream: StreamOperation, query: string, lastEventId: string | undefined) {
  const params = checkedQuery(QuerySchema, query);
  const input = validate(stream.input, {
    lastEventId: lastEventId ?? params.after,
    types: params.types?.split(','),
  });
  if (!input.success) throw new TRPCError({ code: 'BAD_REQUEST', cause: input.error });
  return input.data;
}

/** Events of a stream's own run written in one chunk at most: that chunk is its own copy. */
const EVENTS_PER_WRITE = 64;

/** Each event's frame, built once however many streams send it (the feed shares bodies). */
const frames = new WeakMap<EventBody, string>();

function frame(event: EventBody): string {
  let text = frames.get(event);
  if (text === undefined) {
    text = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, text);
  }
  return text;
}

const framed = (run: EventRun) => run.map((event) => frame(event.body)).join('');

/**
 * A feed batch's frames as one buffer, built once and written to every stream that wants the
 * whole batch: each stream's socket keeps a reference to it until the kernel takes it.
 */
const sharedChunks = new WeakMap<EventRun, Buffer>();

function sharedChunk(run: EventRun): Buffer {
  let chunk = sharedChunks.get(run);
  if (chunk === undefined) {
    chunk = Buffer.from(framed(run));
    sharedChunks.set(run, chunk);
  }
  return chunk;
}

/**
 * The chunks a stream writes for its queued runs: a shared run as its shared buffer, the
 * stream's own runs (filtered, or read while catching up) in pieces of EVENTS_PER_WRITE.
 */
function* chunksOf(runs: readonly EventRun[]) {
  for (const run of runs) {
    if (isFeedBatch(run)) {
      yield sharedChunk(run);
      continue;
    }
    for (let start = 0; start < run.length; start += EVENTS_PER_WRITE) {
      yield framed(run.slice(start, start + EVENTS_PER_WRITE));
    }
  }
}

/** Resolves when the socket takes more, or is gone. */
function writable(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

async function serve(stream: StreamOperation, { req, res, state, ctx }: Call): Promise<void> {
  requireCaller(ctx, stream.scope);
  const input = inputOf(stream, state.query, req.headers['last-event-id'] as string | undefined);
  const client = { gone: false };
  res.once('close', () => (client.gone = true));
  const events = await openWithin(ctx.budget, () => stream.open(ctx, input));
  // A client that left while the stream opened is gone already: its 'close' will not come again.
  if (client.gone) {
    await events.return();
    return;
  }
  res.writeHead(200, {
    ...state.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    // Proxies that buffer answers (nginx) would hold events back.
    'x-accel-buffering': 'no',
  });
  res.write(': stream open\n\n');
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  res.once('close', () => void events.return());
  try {
    for (let runs = await events.nextRuns(); runs; runs = await events.nextRuns()) {
      for (const chunk of chunksOf(runs)) {
        if (!res.write(chunk)) await writable(res);
        // Shutting down, the rest is left for the client to resume: it must not hold the exit.
        if (res.destroyed || events.endedByShutdown) return;
      }
    }
  } catch (error) {
    // The key was revoked: the answer ends as a complete one, and a reconnect meets 401.
    if (!(error instanceof KeyRevokedError)) throw error;
  } finally {
    clearInterval(keepalive);
    await events.return();
    res.end();
  }
}

/** The REST form of a stream (`GET /v1/events`), which a browser's EventSource opens by ticket. */
export function eventStreamEndpoint(stream: StreamOperation, binding: RestBinding): Endpoint {
  return {
    name: binding.path,
    operation: binding.operationId,
    calls: 1,
    bodyTypes: undefined,
    acceptsTicket: true,
    serve: (call) => serve(stream, call),
  };
}
