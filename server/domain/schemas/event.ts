import { z } from 'zod';
import { eventType } from '../../../db/schema.js';
import { cursorParam, limitParam, positiveInt64, timestamp } from './common.js';
import { OrderSchema } from './order.js';
import { PetSchema } from './pet.js';

export const EventTypeSchema = z.enum(eventType.enumValues).meta({
  id: 'EventType',
  description: 'What changed: a pet created, updated or deleted, an order placed or updated.',
});

/**
 * Event ids are decimal strings of the log's int64 ids, which the service reads as numbers:
 * one past 2^53 - 1 would be rounded to another id, so it is refused, naming the bound.
 */
export const MAX_EVENT_ID = Number.MAX_SAFE_INTEGER;

export const EventIdSchema = z
  .string()
  .regex(/^\d{1,16}$/, 'must be an event id: decimal digits')
  .refine((id) => Number(id) <= MAX_EVENT_ID, `must be an event id: at most ${MAX_EVENT_ID}`)
  .meta({
    description: `Id of an event, a decimal string of at most ${MAX_EVENT_ID}; ids increase with every change.`,
  });

export const EventSchema = z
  .object({
    id: EventIdSchema,
    type: EventTypeSchema,
    occurredAt: timestamp('When the change committed (RFC 3339, UTC).'),
    data: z
      .union([PetSchema, OrderSchema, z.object({ id: z.int().min(1).meta({ format: 'int64' }) })])
      .meta({
        description: 'The pet or order after the change; `{ id }` for `pet.deleted`.',
      }),
  })
  .meta({ id: 'Event', description: 'One change to the inventory (experimental).' });

/** The subscription's input; tRPC's httpSubscriptionLink fills in lastEventId on reconnect. */
export const StreamEventsInputSchema = z
  .strictObject({
    lastEventId: EventIdSchema.optional(),
    types: z.array(EventTypeSchema).min(1).optional(),
  })
  .optional();

/** A pet's history: the pet in the path, paged like every list. */
export const PetHistoryInputSchema = z.strictObject({
  petId: positiveInt64('Id of the animal whose history to list.'),
  limit: limitParam('events'),
  cursor: cursorParam('animal'),
});

export type EventBody = z.infer<typeof EventSchema>;
export type StreamEventsInput = z.infer<typeof StreamEventsInputSchema>;

export const StreamTicketSchema = z
  .object({
    ticket: z.string().meta({
      description:
        'Opens one event stream as the key that asked for it: `GET /events?ticket=…`. Single-use.',
    }),
    expiresAt: timestamp('When the ticket stops working if no stream was opened with it.'),
  })
  .meta({
    id: 'StreamTicket',
    description: 'A short-lived, single-use ticket for a browser EventSource (experimental).',
  });
