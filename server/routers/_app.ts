import type { AnyOperation } from '../operations/define.js';
import { createCallerFactory, router } from '../trpc/init.js';
import { eventOperations, eventsRouter, eventSubscriptionPaths } from './events.js';
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
 * Every operation under its tRPC path, the same names the router gives them: the REST routes,
 * the fast `/trpc` path and the OpenAPI document's extras are built from this.
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

/** Every procedure path the router serves: the operations and the subscriptions. */
export const procedurePaths: readonly string[] = [...operations.keys(), ...eventSubscriptionPaths];
