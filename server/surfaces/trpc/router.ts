import type { AnyOperation } from '../../operations/define.js';
import { registry } from '../../operations/registry.js';
import { createCallerFactory, router } from './init.js';
import { proceduresOf } from './procedures.js';

type Namespaces<R extends Record<string, Record<string, AnyOperation>>> = {
  [E in keyof R]: ReturnType<typeof proceduresOf<R[E]>>;
};

/** One namespace of procedures for each of the registry's, under the same names. */
function namespacesOf<R extends Record<string, Record<string, AnyOperation>>>(
  entries: R,
): Namespaces<R> {
  return Object.fromEntries(
    Object.entries(entries).map(([entity, operations]) => [entity, proceduresOf(operations)]),
  ) as Namespaces<R>;
}

/** The tRPC router: one procedure for each operation of the registry, under the same path. */
export const appRouter = router(namespacesOf(registry));

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
