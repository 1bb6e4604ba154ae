import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import type { ApiClient } from '../helpers/http.js';

/** One call of tests/http/trpc-wire.test.ts, made once on each server. */
export interface WireCase {
  procedure: string;
  input?: unknown;
  /**
   * Makes what the call needs (a pet, an order) and returns its input; run once per server, so
   * each server's call meets the same state. Ids differ between the two and are normalised.
   */
  prepare?: (api: ApiClient) => Promise<unknown>;
  /** Sent as the body or the `input` parameter exactly as given, instead of as JSON. */
  raw?: string;
  kind: 'query' | 'mutation';
  key?: string;
  headers?: Record<string, string>;
}

async function created<T>(api: ApiClient, path: string, body: unknown): Promise<T> {
  const response = await api<T>('POST', path, { body });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status}`);
  return response.body;
}

const pet = (api: ApiClient, status: Pet['status'] = 'available') =>
  created<Pet>(api, '/v1/pets', { name: 'Wire', categoryId: 1, status });

const order = async (api: ApiClient) =>
  created<Order>(api, '/v1/store/orders', { petId: (await pet(api)).id });

const MISSING = 9_000_000;

/**
 * updatePet, deletePet, the order, store and event operations: each success and each error they
 * end in.
 */
export const storeCases: [string, WireCase][] = [
  [
    'pets.update',
    {
      procedure: 'pets.update',
      kind: 'mutation',
      prepare: async (api) => ({ petId: (await pet(api)).id, name: 'Renamed', status: 'sold' }),
    },
  ],
  [
    'pets.update, the same status',
    {
      procedure: 'pets.update',
      kind: 'mutation',
      prepare: async (api) => ({ petId: (await pet(api, 'sold')).id, status: 'sold' }),
    },
  ],
  ['pets.update, empty patch', { procedure: 'pets.update', kind: 'mutation', input: { petId: 1 } }],
  [
    'pets.update, null',
    { procedure: 'pets.update', kind: 'mutation', input: { petId: 1, name: null } },
  ],
  [
    'pets.update, unknown pet',
    { procedure: 'pets.update', kind: 'mutation', input: { petId: MISSING, name: 'x' } },
  ],
  [
    'pets.update, refused move',
    {
      procedure: 'pets.update',
      kind: 'mutation',
      prepare: async (api) => ({ petId: (await pet(api, 'sold')).id, status: 'available' }),
    },
  ],
  [
    'pets.update, stale If-Match',
    {
      procedure: 'pets.update',
      kind: 'mutation',
      headers: { 'if-match': '"0.0"' },
      prepare: async (api) => ({ petId: (await pet(api)).id, name: 'Stale' }),
    },
  ],
  [
    'pets.update, read key',
    { procedure: 'pets.update', kind: 'mutation', input: { petId: 1, name: 'x' }, key: 'READ' },
  ],
  [
    'pets.delete',
    {
      procedure: 'pets.delete',
      kind: 'mutation',
      prepare: async (api) => ({ petId: (await pet(api)).id }),
    },
  ],
  [
    'pets.delete, unknown pet',
    { procedure: 'pets.delete', kind: 'mutation', input: { petId: MISSING } },
  ],
  [
    'pets.delete, open order',
    {
      procedure: 'pets.delete',
      kind: 'mutation',
      prepare: async (api) => ({ petId: (await order(api)).petId }),
    },
  ],
  [
    'pets.delete, * for a missing pet',
    {
      procedure: 'pets.delete',
      kind: 'mutation',
      input: { petId: MISSING },
      headers: { 'if-match': '*' },
    },
  ],
  [
    'orders.place',
    {
      procedure: 'orders.place',
      kind: 'mutation',
      prepare: async (api) => ({ petId: (await pet(api)).id }),
    },
  ],
  [
    'orders.place, pet not available',
    {
      procedure: 'orders.place',
      kind: 'mutation',
      prepare: async (api) => ({ petId: (await pet(api, 'pending')).id }),
    },
  ],
  [
    'orders.place, no such pet',
    { procedure: 'orders.place', kind: 'mutation', input: { petId: MISSING } },
  ],
  [
    'orders.place, invalid',
    { procedure: 'orders.place', kind: 'mutation', input: { petId: 'one' } },
  ],
  [
    'orders.place, read key',
    { procedure: 'orders.place', kind: 'mutation', input: { petId: 1 }, key: 'READ' },
  ],
  ['orders.list', { procedure: 'orders.list', kind: 'query', input: { limit: 2 } }],
  ['orders.list without input', { procedure: 'orders.list', kind: 'query' }],
  [
    'orders.list, altered cursor',
    { procedure: 'orders.list', kind: 'query', input: { cursor: 'x.y' } },
  ],
  ['orders.listPage', { procedure: 'orders.listPage', kind: 'query', input: { limit: 1 } }],
  [
    'orders.listPage, invalid',
    { procedure: 'orders.listPage', kind: 'query', input: { status: 'lost' } },
  ],
  [
    'orders.get',
    {
      procedure: 'orders.get',
      kind: 'query',
      prepare: async (api) => ({ orderId: (await order(api)).id }),
    },
  ],
  ['orders.get, unknown', { procedure: 'orders.get', kind: 'query', input: { orderId: MISSING } }],
  ['store.inventory', { procedure: 'store.inventory', kind: 'query' }],
  [
    'pets.history',
    {
      procedure: 'pets.history',
      kind: 'query',
      prepare: async (api) => ({ petId: (await pet(api)).id }),
    },
  ],
  [
    'pets.history, unknown',
    { procedure: 'pets.history', kind: 'query', input: { petId: MISSING } },
  ],
  [
    'pets.historyPage',
    {
      procedure: 'pets.historyPage',
      kind: 'query',
      prepare: async (api) => ({ petId: (await pet(api)).id, limit: 1 }),
    },
  ],
  ['webhooks.list', { procedure: 'webhooks.list', kind: 'query', input: { limit: 2 } }],
  ['webhooks.listPage', { procedure: 'webhooks.listPage', kind: 'query', input: { limit: 0 } }],
  [
    'webhooks.create, private address',
    { procedure: 'webhooks.create', kind: 'mutation', input: { url: 'https://127.0.0.1/hook' } },
  ],
  [
    'webhooks.get, unknown',
    { procedure: 'webhooks.get', kind: 'query', input: { webhookId: 'wh_missing' } },
  ],
  [
    'webhooks.update, unknown',
    {
      procedure: 'webhooks.update',
      kind: 'mutation',
      input: { webhookId: 'wh_missing', enabled: false },
    },
  ],
  [
    'webhooks.delete, unknown',
    { procedure: 'webhooks.delete', kind: 'mutation', input: { webhookId: 'wh_missing' } },
  ],
  [
    'webhooks.rotateSecret, unknown',
    { procedure: 'webhooks.rotateSecret', kind: 'mutation', input: { webhookId: 'wh_missing' } },
  ],
  [
    'webhooks.deliveries, unknown',
    { procedure: 'webhooks.deliveries', kind: 'query', input: { webhookId: 'wh_missing' } },
  ],
  [
    'webhooks.deliveriesPage, bad status',
    {
      procedure: 'webhooks.deliveriesPage',
      kind: 'query',
      input: { webhookId: 'wh_x', status: 'lost' },
    },
  ],
  [
    'webhooks.retryDelivery, unknown',
    {
      procedure: 'webhooks.retryDelivery',
      kind: 'mutation',
      input: { webhookId: 'wh_missing', deliveryId: MISSING },
    },
  ],
  [
    'webhooks.replay, unknown',
    {
      procedure: 'webhooks.replay',
      kind: 'mutation',
      input: { webhookId: 'wh_missing', after: '0' },
    },
  ],
  [
    'store.inventory, unknown input',
    { procedure: 'store.inventory', kind: 'query', input: { status: 'sold' } },
  ],
  [
    'pets.list, filtered',
    { procedure: 'pets.list', kind: 'query', input: { id: '1,2,3', name: 'wir', categoryId: 1 } },
  ],
  ['pets.list, bad ids', { procedure: 'pets.list', kind: 'query', input: { id: '1,,2' } }],
  [
    'orders.update',
    {
      procedure: 'orders.update',
      kind: 'mutation',
      prepare: async (api) => ({ orderId: (await order(api)).id, status: 'cancelled' }),
    },
  ],
  [
    'orders.update, refused move',
    {
      procedure: 'orders.update',
      kind: 'mutation',
      prepare: async (api) => ({ orderId: (await order(api)).id, status: 'delivered' }),
    },
  ],
  [
    'orders.update, unknown order',
    {
      procedure: 'orders.update',
      kind: 'mutation',
      input: { orderId: MISSING, status: 'approved' },
    },
  ],
  [
    'orders.update, read key',
    {
      procedure: 'orders.update',
      kind: 'mutation',
      input: { orderId: 1, status: 'approved' },
      key: 'READ',
    },
  ],
  ['events.ticket', { procedure: 'events.ticket', kind: 'mutation' }],
  ['events.ticket, read key', { procedure: 'events.ticket', kind: 'mutation', key: 'READ' }],
  ['events.ticket, with input', { procedure: 'events.ticket', kind: 'mutation', input: {} }],
  // Refused before it streams: an open stream would never end the answer that is compared.
  [
    'events.onChange, unknown type',
    { procedure: 'events.onChange', kind: 'query', input: { types: ['pet.lost'] } },
  ],
];
