import { eventType } from '../../../db/schema.js';
import type { EventType } from '../../../db/queries/events.js';
import { STABILITY } from '../../surfaces/openapi/responses.js';

type Json = Record<string, unknown>;

/** The data each event type carries, as the stream sends it. */
const DATA: Record<EventType, Json> = {
  'pet.created': { $ref: '#/components/schemas/Pet' },
  'pet.updated': { $ref: '#/components/schemas/Pet' },
  'pet.deleted': {
    type: 'object',
    properties: { id: { type: 'integer', format: 'int64', minimum: 1 } },
    required: ['id'],
  },
  'order.placed': { $ref: '#/components/schemas/Order' },
  'order.updated': { $ref: '#/components/schemas/Order' },
};

const HEADERS: [string, string][] = [
  [
    'webhook-id',
    '`evt_<event id>`: the same on every attempt of this event; the receiver dedupes by it.',
  ],
  ['webhook-timestamp', "The attempt's time, in Unix seconds."],
  [
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed by the secret; two, space separated, for 24 hours after a rotation.',
  ],
];

const operationIdOf = (type: string) =>
  `${type.replace(/\.(\w)/, (_, first: string) => first.toUpperCase())}Webhook`;

/**
 * OpenAPI 3.1's top-level `webhooks`: the request each event type's delivery makes to a
 * registered endpoint (docs/webhooks.md), its body and its Standard Webhooks headers.
 */
export function webhookRequests(): Record<string, Json> {
  return Object.fromEntries(
    eventType.enumValues.map((type) => [
      type,
      {
        post: {
          operationId: operationIdOf(type),
          summary: `A \`${type}\` delivery`,
          description: `Sent to every enabled endpoint subscribed to \`${type}\`, signed by Standard Webhooks 1.0. Answer 2xx within 15 s; anything else is retried on the schedule, and \`410\` disables the endpoint.\n\n${STABILITY.beta}`,
          tags: ['webhooks'],
          'x-stability': 'beta',
          // Sent by the service: the receiver checks the signature, not an API key.
          security: [],
          parameters: HEADERS.map(([name, description]) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    type: { type: 'string', const: type },
                    timestamp: {
                      type: 'string',
                      format: 'date-time',
                      description: "When the change committed (the event's `occurredAt`).",
                    },
                    data: DATA[type],
                  },
                  required: ['type', 'timestamp', 'data'],
                },
              },
            },
          },
          responses: {
            '200': { description: 'Received (any 2xx).' },
            '410': { description: 'Gone: the endpoint is disabled and gets nothing more.' },
          },
        },
      },
    ]),
  );
}
