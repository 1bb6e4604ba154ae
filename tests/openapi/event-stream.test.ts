import { describe, expect, it } from 'vitest';
import { eventType } from '../../db/schema.js';
import { useTestServer } from '../helpers/server.js';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument,
   @typescript-eslint/no-unsafe-return
   -- these tests walk the served JSON document, whose shape is what they assert */
type Json = Record<string, any>;

const server = useTestServer();
const served = (): Json => server.conformance.document;
const streamEvents = (): Json => served().paths['/events'].get;

describe('GET /events in the served document', () => {
  it('is streamEvents, experimental, a text/event-stream of Event', () => {
    const operation = streamEvents();
    expect(operation.operationId).toBe('streamEvents');
    expect(operation['x-stability']).toBe('experimental');
    expect(operation.description).toMatch(/Stability: experimental/);
    expect(operation.security).toEqual([{ bearerAuth: [] }, { streamTicket: [] }]);
    expect(Object.keys(operation.responses['200'].content)).toEqual(['text/event-stream']);
    const schema = operation.responses['200'].content['text/event-stream'].schema;
    expect(schema.contentMediaType).toBe('text/event-stream');
    expect(schema.contentSchema).toEqual({ $ref: '#/components/schemas/Event' });
  });

  it('takes after, types and Last-Event-ID, the ids as decimal strings', () => {
    const parameters = streamEvents().parameters as Json[];
    expect(parameters.map((parameter) => [parameter.in, parameter.name])).toEqual([
      ['query', 'after'],
      ['query', 'types'],
      ['header', 'Last-Event-ID'],
    ]);
    for (const parameter of parameters) expect(parameter.required ?? false).toBe(false);
    expect(parameters[0]?.schema.pattern).toBe('^\\d{1,16}$');
    expect(parameters[2]?.schema.pattern).toBe('^\\d{1,16}$');
  });

  it('documents its refusals: 400, 401, 410, and 429 for the stream limit with Retry-After', () => {
    const { responses } = streamEvents();
    for (const status of ['400', '401', '410', '429', '503']) {
      expect(responses[status].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    }
    expect(responses['410'].description).toMatch(/no longer kept/);
    expect(responses['429'].description).toMatch(/open event streams/);
    expect(responses['429'].headers['Retry-After']).toEqual({
      $ref: '#/components/headers/RetryAfter',
    });
    expect(served().components.headers.RetryAfter.required).toBe(true);
  });

  it('describes Event: a decimal id, its type from the log, and the resource after the change', () => {
    const { Event, EventType } = served().components.schemas as Json;
    expect(Event.required).toEqual(['id', 'type', 'occurredAt', 'data']);
    expect(Event.additionalProperties).toBe(false);
    expect(Event.properties.id).toMatchObject({ type: 'string', pattern: '^\\d{1,16}$' });
    expect(Event.properties.type).toEqual({ $ref: '#/components/schemas/EventType' });
    expect(EventType.enum).toEqual(eventType.enumValues);
    expect(Event.properties.occurredAt.format).toBe('date-time');
    const [pet, order, deleted] = Event.properties.data.anyOf as Json[];
    expect([pet, order]).toEqual([
      { $ref: '#/components/schemas/Pet' },
      { $ref: '#/components/schemas/Order' },
    ]);
    expect(deleted).toMatchObject({ required: ['id'], additionalProperties: false });
  });

  it('has no REST path for the tRPC subscription itself', () => {
    expect(Object.keys(served().paths).filter((path) => path.includes('onChange'))).toEqual([]);
  });
});

describe('the Event schema against events', () => {
  const check = (event: unknown) => {
    server.conformance.checkSchema('/components/schemas/Event', event, 'event');
  };

  it('accepts each kind of event and refuses what is not one', () => {
    const at = '2026-11-24T09:30:00.000Z';
    const pet = { id: 3, name: 'Rex', categoryId: 1, status: 'available' };
    const order = { id: 1, petId: 3, status: 'placed', placedAt: at, updatedAt: at };
    check({ id: '7', type: 'pet.created', occurredAt: at, data: pet });
    check({ id: '8', type: 'order.placed', occurredAt: at, data: order });
    check({ id: '9', type: 'pet.deleted', occurredAt: at, data: { id: 3 } });
    expect(() => {
      check({ id: 9, type: 'pet.deleted', occurredAt: at, data: { id: 3 } });
    }).toThrow(/does not match/);
    expect(() => {
      check({ id: '9', type: 'pet.sold', occurredAt: at, data: { id: 3 } });
    }).toThrow(/does not match/);
  });
});
