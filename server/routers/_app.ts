import { createCallerFactory, router } from '../trpc.js';
import { petsRouter } from './pets.js';

export const appRouter = router({
  pets: petsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
