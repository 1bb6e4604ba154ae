import type { z } from 'zod';
import { isDatabaseUnavailable } from '../../db/errors.js';
import type { ReadReplicas } from '../../db/replicas/read-replicas.js';
import { DomainError } from '../domain/errors.js';
import { formatPosition, parsePosition, POSITION_HEADER } from '../domain/versions/position.js';
import type { OperationContext } from './context.js';
import type { Operation } from './define.js';

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const settle = <T>(work: Promise<T>): Promise<Outcome<T>> =>
  work.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );

const unwrap = <T>(outcome: Outcome<T>): T => {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
};

/** An answer the operation gave on purpose: its data, or a refusal such as a 404. */
const answered = (outcome: Outcome<unknown>): boolean =>
  outcome.ok || outcome.error instanceof DomainError;

/** The answer's Petstore-Position: the highest of the calls it answers (a tRPC batch has several). */
function answerPosition(headers: Record<string, string>, position: bigint): void {
  const text = formatPosition(position);
  const current = headers[POSITION_HEADER];
  if (current === undefined || text > current) headers[POSITION_HEADER] = text;
}

/**
 * The primary's position read after the work: a position the client may send to see it. A
 * primary that stops answering between the two leaves the answer without one; the work is done.
 */
async function answerPrimaryPosition(ctx: OperationContext, replicas: ReadReplicas) {
  const position = await replicas.primaryPosition().catch(() => undefined);
  if (position !== undefined) answerPosition(ctx.responseHeaders, position);
}

async function onPrimary<T>(ctx: OperationContext, replicas: ReadReplicas, work: Promise<T>) {
  const result = await work;
  await answerPrimaryPosition(ctx, replicas);
  return result;
}

/**
 * A read on a replica that has replayed what the request's position asks for, else on the
 * primary: tried on the replica, kept only if the replica did not restart meanwhile, and run
 * again on the primary if it failed there, so no read fails or goes back for a replica's sake.
 */
async function readOnReplica<T>(
  ctx: OperationContext,
  replicas: ReadReplicas,
  position: bigint | undefined,
  read: (ctx: OperationContext) => Promise<T>,
): Promise<T> {
  const chosen = await replicas.route(position, ctx.budget);
  if (chosen) {
    // Its own headers: a read run again on the primary must not keep the replica's Link.
    const headers: Record<string, string> = {};
    const outcome = await settle(read({ ...ctx, db: chosen.runner, responseHeaders: headers }));
    if (!outcome.ok && !answered(outcome)) {
      if (ctx.budget.spent) throw outcome.error;
      if (isDatabaseUnavailable(outcome.error)) chosen.replica.markDown();
      replicas.fellBack('failed');
    } else {
      const served = await chosen.confirm();
      if (served !== undefined) {
        replicas.served(chosen.replica.name);
        Object.assign(ctx.responseHeaders, headers);
        if (outcome.ok) answerPosition(ctx.responseHeaders, served);
        return unwrap(outcome);
      }
      replicas.fellBack('restarted');
    }
  }
  replicas.served('primary');
  return onPrimary(ctx, replicas, read(ctx));
}

/**
 * Runs an operation's handler where the contract puts it. Without replicas that is all it
 * does. With them, the reads the contract lists may go to a replica, and every successful
 * write and such read answers with the position it was served at (`Petstore-Position`).
 */
export function perform<I extends z.ZodType, O extends z.ZodType>(
  operation: Operation<I, O>,
  ctx: OperationContext,
  input: z.output<I>,
): Promise<z.input<O>> {
  const { replicas } = ctx;
  if (operation.replicaRead === true) {
    // Checked with or without replicas: the header means the same on every deployment.
    const position = parsePosition(ctx.position);
    if (replicas === undefined) return operation.handler(ctx, input);
    return readOnReplica(ctx, replicas, position, (on) => operation.handler(on, input));
  }
  if (replicas === undefined || operation.kind !== 'mutation') return operation.handler(ctx, input);
  return onPrimary(ctx, replicas, operation.handler(ctx, input));
}
