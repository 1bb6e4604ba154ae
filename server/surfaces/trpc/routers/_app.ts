import type { AnyOperation } from '../../../operations/define.js';
import { createCallerFactory, router } from '../init.js';
import { eventOperations, eventsRouter } from './events.js';
import { orderOperations, ordersRouter } from './orders.js';
import { petOperations, petsRouter } from './pets.js';
import { storeOperations, storeRouter } from './store.js';

export const appRouter = router({
  pets: petsRouter,
  orders: ordersRouter,
  store: storeRouter,
  events: eventsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);

/**
 * The registry: every operation, the event stream included, under its tRPC path, the same
 * names the router gives them. The REST routes, the fast `/trpc` path, the OpenAPI document's
 * extras, CORS and the tests' inventories are built from this.
 */
const entities: Record<string, Record<string, AnyOperation>> = {
  pets: petOperations,
  orders: orderOperations,
  store: storeOperations,
  events: eventOperations,
};

export const operations: ReadonlyMap<string, AnyOperation> = new Map(
  Object.entries(entities).flatMap(([entity, record]) =>
    Object.entries(record).map(([name, operation]): [string, AnyOperation] => [
      `${entity}.${name}`,
      operation,
    ]),
  ),
);
