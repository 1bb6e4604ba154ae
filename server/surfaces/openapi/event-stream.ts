import type { OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { EventTypeSchema, MAX_EVENT_ID } from '../../domain/schemas/event.js';
import type { RestBinding } from '../../operations/define.js';
import { responsesOf, STABILITY } from './responses.js';

/** `types` as the stream reads it: one or more event types, comma-separated, nothing else. */
const EVENT_TYPE = `(?:${EventTypeSchema.options.map((type) => type.replaceAll('.', '\\.')).join('|')})`;
export const EVENT_TYPES_PATTERN = `^${EVENT_TYPE}(?:,${EVENT_TYPE})*$`;

/**
 * A stream's path (`GET /events`), which trpc-to-openapi cannot describe (it documents queries
 * and mutations): a `text/event-stream` answer whose events each carry an Event as JSON.
 */
export function eventStreamPath(binding: RestBinding): NonNullable<OpenAPIObject['paths']> {
  const stream = {
    description: binding.successDescription,
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description:
            'Server-sent events: `id: <event id>`, `event: <type>`, `data: <the Event as JSON>`, a blank line; and comment lines (`: keepalive`) at least every 15 s.',
          contentMediaType: 'text/event-stream',
          contentSchema: { $ref: '#/components/schemas/Event' },
        },
      },
    },
  };
  return {
    [binding.path]: {
      get: {
        operationId: binding.operationId,
        summary: binding.summary,
        description: `${binding.description}\n\n${STABILITY[binding.stability]}`,
        tags: binding.tags,
        // Either credential, never both: a browser's EventSource can send only the ticket.
        security: [{ bearerAuth: [] }, { streamTicket: [] }],
        parameters: [
          {
            in: 'query' as const,
            name: 'after',
            description: `Resume after this event id, at most ${MAX_EVENT_ID} (\`Last-Event-ID\` wins when both are sent).`,
            schema: { type: 'string', pattern: '^\\d{1,16}$' },
          },
          {
            in: 'query' as const,
            name: 'types',
            description: 'Comma-separated event types to keep, e.g. `pet.created,order.placed`.',
            schema: { type: 'string', pattern: EVENT_TYPES_PATTERN },
          },
          {
            in: 'header' as const,
            name: 'Last-Event-ID',
            description: `The id of the last event received, at most ${MAX_EVENT_ID}: resume after it.`,
            schema: { type: 'string', pattern: '^\\d{1,16}$' },
          },
        ],
        responses: responsesOf(binding, { '200': stream }, false),
        'x-stability': binding.stability,
      },
    },
  };
}

/** `?ticket=` from createStreamTicket, which only the event stream takes. */
export const STREAM_TICKET_SCHEME = {
  type: 'apiKey' as const,
  in: 'query' as const,
  name: 'ticket',
  description:
    'A single-use ticket from `POST /events/tickets`, for clients that cannot send `Authorization` (a browser EventSource). Never send the API key itself in a URL.',
};

type Schemas = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>;

/**
 * A stream's event schema (Event) and those it names, as zod renders an answer, pointing at the
 * document's own components (Pet and Order are there already, rendered the same way by the
 * generator).
 */
export function eventSchemas(existing: Schemas, event: z.ZodType): Schemas {
  const rendered = z.toJSONSchema(event, { io: 'output', unrepresentable: 'any' });
  const text = JSON.stringify(rendered.$defs ?? {}).replaceAll('#/$defs/', '#/components/schemas/');
  const defs = JSON.parse(text) as Schemas;
  return Object.fromEntries(Object.entries(defs).filter(([name]) => !(name in existing)));
}
