import type { z } from 'zod';
import { InvalidError } from '../domain/errors.js';
import { validate } from '../domain/schemas/validate.js';
import { requireCaller, type Context } from './context.js';
import type { Operation } from './define.js';
import { perform } from './perform.js';

/**
 * Runs an operation for the HTTP surfaces, step for step as its tRPC procedure does (the guard,
 * input validation, the handler within the request's database budget, output validation), with
 * the same errors; REST and the fast `/trpc` path both call it. tRPC's own runner, which the
 * procedure goes through for createCaller, batches and subscriptions, nests an async level per
 * middleware and parser; this is one.
 */
export async function execute<O extends z.ZodType>(
  operation: Operation<z.ZodType, O>,
  ctx: Context,
  rawInput: unknown,
): Promise<z.output<O>> {
  requireCaller(ctx, operation.scope);
  const input = validate(operation.input, rawInput);
  if (!input.success) throw new InvalidError('Invalid input', { cause: input.error });
  const data: unknown = await ctx.budget.within(() => perform(operation, ctx, input.data));
  const output = validate(operation.output, data);
  if (!output.success) {
    // Not the caller's doing: the surfaces answer it as any unexpected error, a 500.
    throw new Error('Output validation failed', { cause: output.error });
  }
  return output.data;
}
