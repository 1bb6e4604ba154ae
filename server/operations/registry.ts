import type { AnyOperation } from './define.js';
import { createStreamTicket, streamEvents } from './events.js';
import { getOrder, listOrders, placeOrder, updateOrder } from './orders.js';
import { pagedEntries } from './paged-list.js';
import { deletePet, updatePet } from './pet-changes.js';
import { listPetHistory } from './pet-history.js';
import { createPet, getPet, listPets } from './pets.js';
import { getInventory } from './store.js';
import {
  listWebhookDeliveries,
  replayWebhook,
  retryWebhookDelivery,
} from '../webhooks/operations/deliveries.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from '../webhooks/operations/endpoints.js';

/**
 * The registry: every operation, the event stream included, under its tRPC path (`pets.get`).
 * The tRPC router, the REST routes, the fast `/trpc` path, the OpenAPI document's extras, CORS,
 * the metrics' operation names and the tests' inventories are all built from it, so adding an
 * operation is its definition and one line here.
 */
export const registry = {
  pets: {
    ...pagedEntries('list', listPets),
    create: createPet,
    get: getPet,
    update: updatePet,
    delete: deletePet,
    ...pagedEntries('history', listPetHistory),
  },
  /** The store's orders; beta. */
  orders: {
    ...pagedEntries('list', listOrders),
    place: placeOrder,
    get: getOrder,
    update: updateOrder,
  },
  /** The store as a whole; beta. */
  store: {
    inventory: getInventory,
  },
  /**
   * Experimental: `events.onChange` is every change, over server-sent events; `events.ticket`
   * opens it from an EventSource.
   */
  events: {
    ticket: createStreamTicket,
    onChange: streamEvents,
  },
  /** Beta: endpoints that every change is pushed to, and their deliveries. */
  webhooks: {
    ...pagedEntries('list', listWebhooks),
    create: createWebhook,
    get: getWebhook,
    update: updateWebhook,
    delete: deleteWebhook,
    rotateSecret: rotateWebhookSecret,
    ...pagedEntries('deliveries', listWebhookDeliveries),
    retryDelivery: retryWebhookDelivery,
    replay: replayWebhook,
  },
} satisfies Record<string, Record<string, AnyOperation>>;

const entities: Record<string, Record<string, AnyOperation>> = registry;

/** The registry flat, by tRPC path. */
export const operations: ReadonlyMap<string, AnyOperation> = new Map(
  Object.entries(entities).flatMap(([entity, record]) =>
    Object.entries(record).map(([name, operation]): [string, AnyOperation] => [
      `${entity}.${name}`,
      operation,
    ]),
  ),
);
