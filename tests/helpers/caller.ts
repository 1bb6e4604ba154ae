import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';
import { createContextInner, type ContextOptions } from '../../server/operations/context.js';
import { createCaller } from '../../server/surfaces/trpc/router.js';

/** A router caller on a real database, and the context it ran with (to read response headers). */
export function callerFor(options: Omit<ContextOptions, 'baseUrl'>) {
  const ctx = createContextInner({ baseUrl: 'http://pets.test/v1', ...options });
  return { caller: createCaller(ctx), ctx };
}

/** The TRPCError a call rejected with; fails the test if it resolved or threw anything else. */
export async function rejection(promise: Promise<unknown>): Promise<TRPCError> {
  const error: unknown = await promise.then(
    () => undefined,
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}
