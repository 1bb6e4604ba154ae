import { registry } from '../../operations/registry.js';
import { createCallerFactory, router } from './init.js';
import { proceduresOf } from './procedures.js';

/** The tRPC router: one procedure for each operation of the registry, under the same path. */
export const appRouter = router({
  pets: router(proceduresOf(registry.pets)),
  orders: router(proceduresOf(registry.orders)),
  store: router(proceduresOf(registry.store)),
  events: router(proceduresOf(registry.events)),
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
