import { tracked } from '@trpc/server';
import type { z } from 'zod';
import type { ApiKeyScope } from '../../../db/queries/api-keys.js';
import type {
  AnyOperation,
  Operation,
  RestBinding,
  StreamOperation,
} from '../../operations/define.js';
import { requireCaller, type OperationContext } from '../../operations/context.js';
import { perform } from '../../operations/perform.js';
import { openWithin, StreamsClosingError } from '../../domain/events/streams.js';
import { toTRPCError } from './errors.js';
import { middleware, procedure, type Meta } from './init.js';

/**
 * The guard every operation's procedure runs first: the caller and its scope, then the rest of
 * the call within the request's database budget, so that a lost or hung database is a 503 in
 * time rather than a 500 or a hang. Whatever fails leaves it as tRPC's error (toTRPCError).
 */
function guard(scope: ApiKeyScope) {
  return middleware(async ({ ctx, next }) => {
    try {
      requireCaller(ctx, scope);
      const result = await ctx.budget.within(() => next({ ctx: { principal: ctx.principal } }));
      if (!result.ok) {
        const classified = toTRPCError(result.error);
        if (classified !== result.error) throw classified;
      }
      return result;
    } catch (error) {
      throw toTRPCError(error);
    }
  });
}

/** trpc-to-openapi's view of a REST binding; what it cannot express is added in server/surfaces/openapi/. */
function openApiMeta(rest: RestBinding | undefined): Meta {
  if (!rest) return {};
  return {
    openapi: {
      method: rest.method,
      path: rest.path,
      operationId: rest.operationId,
      summary: rest.summary,
      description: rest.description,
      tags: rest.tags,
      deprecated: rest.deprecation !== undefined,
      successDescription: rest.successDescription,
      ...(rest.requestHeaders ? { requestHeaders: rest.requestHeaders } : {}),
      ...(rest.responseHeaders ? { responseHeaders: rest.responseHeaders } : {}),
    },
  };
}

function base<I extends z.ZodType, O extends z.ZodType>(operation: Operation<I, O>) {
  return procedure
    .use(guard(operation.scope))
    .meta(openApiMeta(operation.rest))
    .input(operation.input)
    .output(operation.output);
}

/**
 * tRPC types the resolver's input and result from the parsers, which TypeScript cannot relate
 * to the operation's own `z.output<I>` and `z.input<O>` while I and O are open; they are the
 * same schemas, so the handler is called as it is typed.
 */
function resolverOf<I extends z.ZodType>(operation: Operation<I>) {
  return ({ ctx, input }: { ctx: OperationContext; input: unknown }) =>
    perform(operation, ctx, input as z.output<I>) as Promise<never>;
}

export function queryProcedure<I extends z.ZodType, O extends z.ZodType>(
  operation: Operation<I, O, 'query'>,
) {
  return base(operation).query(resolverOf(operation));
}

export function mutationProcedure<I extends z.ZodType, O extends z.ZodType>(
  operation: Operation<I, O, 'mutation'>,
) {
  return base(operation).mutation(resolverOf(operation));
}

type ProcedureOf<T> =
  T extends Operation<infer I, infer O, 'query'>
    ? ReturnType<typeof queryProcedure<I, O>>
    : T extends Operation<infer I, infer O, 'mutation'>
      ? ReturnType<typeof mutationProcedure<I, O>>
      : T extends StreamOperation<infer I>
        ? ReturnType<typeof subscriptionProcedure<I>>
        : never;

function procedureOf(operation: AnyOperation) {
  switch (operation.kind) {
    case 'query':
      return queryProcedure(operation as Operation<z.ZodType, z.ZodType, 'query'>);
    case 'mutation':
      return mutationProcedure(operation as Operation<z.ZodType, z.ZodType, 'mutation'>);
    case 'subscription':
      return subscriptionProcedure(operation);
  }
}

/** The procedures of a record of operations, under the same names. */
export function proceduresOf<T extends Record<string, AnyOperation>>(
  operations: T,
): { [K in keyof T]: ProcedureOf<T[K]> } {
  return Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => [name, procedureOf(operation)]),
  ) as { [K in keyof T]: ProcedureOf<T[K]> };
}

/**
 * The subscription of a stream: each event sent with `tracked(id, event)`, so that
 * httpSubscriptionLink resumes after the last id it saw when it reconnects. The stream opens
 * before tRPC answers, so `connected` (the client's onStarted) means the subscription is in
 * place: every change after it arrives. At shutdown the iteration ends with a retryable error
 * rather than a return, which tRPC's client would take as the end of the subscription.
 */
export function subscriptionProcedure<I extends z.ZodType>(stream: StreamOperation<I>) {
  return procedure
    .use(guard(stream.scope))
    .input(stream.input)
    .subscription(async ({ ctx, input, signal }) => {
      const events = await openWithin(ctx.budget, () => stream.open(ctx, input as z.output<I>));
      const stop = () => void events.return();
      if (signal?.aborted) stop();
      else signal?.addEventListener('abort', stop);
      return (async function* () {
        try {
          for await (const event of events) yield tracked(event.id, event);
          if (events.endedByShutdown) throw new StreamsClosingError();
        } catch (error) {
          // tRPC would send a domain error as a 500: it ends the stream with its own code.
          throw toTRPCError(error);
        } finally {
          signal?.removeEventListener('abort', stop);
          await events.return();
        }
      })();
    });
}
