import { STREAM_RETRY_AFTER_SECONDS, TooManyStreamsError } from '../domain/events/streams.js';
import type { Subscription } from '../domain/events/subscription.js';
import { z } from 'zod';
import {
  EventSchema,
  StreamEventsInputSchema,
  StreamTicketSchema,
  type StreamEventsInput,
} from '../domain/schemas/event.js';
import { defineMutation, defineSubscription, type RestBinding } from './define.js';
import type { OperationContext } from './context.js';

/**
 * The one stream the service offers, an entry of the registry like every operation: the tRPC
 * subscription `events.onChange` (server/surfaces/trpc/procedures.ts), the REST stream `GET /v1/events`
 * (server/surfaces/http/rest/event-stream.ts) and its OpenAPI entry (server/surfaces/openapi/event-stream.ts).
 */
export const streamEvents = defineSubscription({
  scope: 'read',
  input: StreamEventsInputSchema,
  output: EventSchema,
  rest: {
    method: 'GET',
    path: '/events',
    operationId: 'streamEvents',
    summary: 'Follow every change',
    description:
      'Server-sent events (`text/event-stream`): each change as `id:`, `event:` (its type) and `data:` (the Event as JSON), in id order, each once. Send `Last-Event-ID` (or `?after=`; the header wins) to resume after an event: every later one, then live ones. Without it the stream starts with the next change. `?types=pet.created,order.placed` keeps only those types. A comment line comes at least every 15 s. Events are kept 7 days unless the operator configured otherwise: resuming from an id older than that is 410, after which a client reads the current state again and follows without an id. At most 20 open streams per API key unless configured (REST and tRPC together): the next is 429. A browser `EventSource`, which cannot send `Authorization`, opens it with `?ticket=` from `POST /events/tickets` instead (never both: 401).',
    tags: ['events'],
    stability: 'experimental',
    successStatus: 200,
    successDescription: 'The stream of events.',
    errorResponses: {
      400: 'An unknown type, a non-numeric `after` or `Last-Event-ID`, an id beyond the last event (never sent by this service), or an unknown or repeated parameter.',
      429: "The API key already holds its most open event streams (20 unless configured), or has spent its window's request quota, or the client address has failed authentication too often; retry after `Retry-After` seconds.",
      410: 'Events after this id are no longer kept; follow without an id after reading the current state.',
    },
  } satisfies RestBinding,
  /**
   * A stream for the caller, from `lastEventId` on, or from the next change. Refused for too
   * many open streams, the answer says when to retry (`Retry-After`), as the rate limit's does.
   */
  async open(ctx: OperationContext, input: StreamEventsInput): Promise<Subscription> {
    if (!ctx.streams) throw new Error('This context serves no event streams');
    try {
      return await ctx.streams.subscribe({
        keyId: ctx.principal.keyId,
        after: input?.lastEventId === undefined ? undefined : Number(input.lastEventId),
        types: input?.types,
        onCutOff: ctx.closeConnection,
      });
    } catch (error) {
      if (error instanceof TooManyStreamsError) {
        ctx.responseHeaders['retry-after'] = String(STREAM_RETRY_AFTER_SECONDS);
      }
      throw error;
    }
  },
});

/**
 * A ticket that opens one stream as the caller's key, for clients that cannot send a header
 * (a browser's EventSource): `GET /v1/events?ticket=…`. The key never goes in a URL.
 */
export const createStreamTicket = defineMutation({
  scope: 'read',
  input: z.void(),
  output: StreamTicketSchema,
  rest: {
    method: 'POST',
    path: '/events/tickets',
    operationId: 'createStreamTicket',
    summary: 'Get a ticket to open an event stream',
    description:
      "For a browser's `EventSource`, which cannot send `Authorization`: send the key here (no body), then open `GET /events?ticket=<ticket>` (with `types` and `after` as needed) without `Authorization`. The stream is the key's, as if the key had opened it: its scope, its stream limit, and it ends when the key is revoked. A ticket is spent by the first request that presents it, whether the stream opens or is refused, and expires after 60 s unless the operator configured otherwise; an `EventSource` cannot reconnect with it, so get a new ticket to resume (`after=` the last id received).",
    tags: ['events'],
    stability: 'experimental',
    successStatus: 201,
    successDescription: 'The ticket and when it expires.',
    errorResponses: {
      400: 'A body or a query parameter was sent; this operation takes neither.',
      413: 'A body larger than 64 KiB was sent.',
      415: 'A body that is not application/json was sent.',
    },
  } satisfies RestBinding,
  handler: async (ctx) => {
    if (!ctx.streams) throw new Error('This context serves no event streams');
    const { ticket, expiresAt } = await ctx.streams.tickets.issue(ctx.principal.keyId);
    return { ticket, expiresAt: expiresAt.toISOString() };
  },
});
