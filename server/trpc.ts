import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { withDatabaseDeadline } from '../db/deadline.js';
import type { ApiKeyScope } from '../db/queries/api-keys.js';
import type { Principal } from './auth/authenticator.js';
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

/** The scope each guard middleware demands; server/procedure-call.ts reads it to fuse calls. */
export const guardScopes = new WeakMap<object, ApiKeyScope>();

/** Authentication, so an anonymous caller learns nothing about validation; then the key's scope. */
export function authorize(principal: Principal | null, scope: ApiKeyScope): Principal {
  if (!principal) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Missing or invalid API key' });
  }
  if (scope === 'write' && principal.scope !== 'write') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'This API key is read-only' });
  }
  return principal;
}

/**
 * The rest of the call, within the database deadline: it answers 503 rather than 500 when the
 * database is lost, and in time even when the database hangs instead of failing.
 */
export async function withinDeadline<R extends CallResult>(rest: Promise<R>): Promise<R> {
  const result = await withDatabaseDeadline(rest).catch((error: unknown) => {
    throw toTRPCError(error);
  });
  if (!result.ok) {
    const classified = toTRPCError(result.error);
    if (classified !== result.error) throw classified;
  }
  return result;
}

/** What tRPC's `next()` answers: the call's data, or the TRPCError it failed with. */
export type CallResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };

/**
 * Everything a procedure needs before its own input validation, in one middleware: each level
 * of tRPC's middleware chain copies the call's options twice (~13% of a request's CPU in a
 * profile of GET /v1/pets/{petId}).
 */
function guard(scope: ApiKeyScope) {
  const builder = t.middleware(async ({ ctx, next }) =>
    withinDeadline(next({ ctx: { principal: authorize(ctx.principal, scope) } })),
  );
  for (const middleware of builder._middlewares) guardScopes.set(middleware, scope);
  return builder;
}

export const authedProcedure = t.procedure.use(guard('read'));

export const scopedProcedure = (scope: ApiKeyScope) => t.procedure.use(guard(scope));
