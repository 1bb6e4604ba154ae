import { STREAM_RETRY_AFTER_SECONDS, TooManyStreamsError } from '../events/streams.js';
import type { Subscription } from '../events/subscription.js';
import { EventSchema, StreamEventsInputSchema, type StreamEventsInput } from '../schemas/event.js';
import type { OperationContext, RestBinding } from './define.js';

/**
 * The one stream the service offers, defined once: the tRPC subscription `events.onChange`
 * (server/trpc/procedures.ts), the REST stream `GET /v1/events` (server/http/rest/event-stream.ts)
 * and its OpenAPI entry (server/openapi/document.ts) all come from it.
 */
export const streamEvents = {
  scope: 'read' as const,
  input: StreamEventsInputSchema,
  output: EventSchema,
  rest: {
    method: 'GET',
    path: '/events',
    operationId: 'streamEvents',
    summary: 'Follow every change',
    description:
      'Server-sent events (`text/event-stream`): each change as `id:`, `event:` (its type) and `data:` (the Event as JSON), in id order, each once. Send `Last-Event-ID` (or `?after=`; the header wins) to resume after an event: every later one, then live ones. Without it the stream starts with the next change. `?types=pet.created,order.placed` keeps only those types. A comment line comes at least every 15 s. Events are kept 7 days unless the operator configured otherwise: resuming from an id older than that is 410, after which a client reads the current state again and follows without an id. At most 20 open streams per API key unless configured (REST and tRPC together): the next is 429.',
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
};
