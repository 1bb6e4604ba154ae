import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { withDatabaseDeadline } from '../db/deadline.js';
import type { ApiKeyScope } from '../db/queries/api-keys.js';
import type { Context } from './context.js';
import { contractCode, errorBody, toTRPCError } from './errors.js';

/** `successStatus` is the REST status of a successful call (tRPC itself always answers 200). */
export type Meta = OpenApiMeta<{ successStatus?: 200 | 201 }>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Never put stack traces in responses.
    isDev: false,
    errorFormatter: ({ shape, error }) => {
      const { message, issues } = errorBody(error);
      return {
        ...shape,
        message,
        data: { ...shape.data, code: contractCode(error.code), issues, stack: undefined },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * A procedure that lost its database answers 503 on every surface, not 500, and within the
 * deadline even when the database hangs instead of failing.
 */
const databaseAvailability = t.middleware(async ({ next }) => {
  let result: Awaited<ReturnType<typeof next>>;
  try {
    result = await withDatabaseDeadline(next());
  } catch (error) {
    throw toTRPCError(error);
  }
  if (!result.ok) {
    const classified = toTRPCError(result.error);
    if (classified !== result.error) throw classified;
  }
  return result;
});

export const publicProcedure = t.procedure.use(databaseAvailability);

/** Authentication runs before input validation, so an anonymous caller learns nothing about it. */
export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.principal) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Missing or invalid API key' });
  }
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

export const scopedProcedure = (scope: ApiKeyScope) =>
  authedProcedure.use(({ ctx, next }) => {
    if (scope === 'write' && ctx.principal.scope !== 'write') {
      throw new TRPCError({ code: 'FORBIDDEN', message: 'This API key is read-only' });
    }
    return next();
  });
