import { TRPCError } from '@trpc/server';
import type { AnyOperation } from '../../../operations/define.js';
import { refusal, type Endpoint } from '../pipeline/endpoint.js';
import type { RequestState } from '../pipeline/request-state.js';

/** The methods tRPC's wire accepts for each kind of procedure. */
const ACCEPTED: Record<AnyOperation['kind'], readonly string[]> = {
  query: ['GET'],
  mutation: ['POST'],
  subscription: ['GET'],
};

/** The only methods tRPC's adapter can answer per call (a batch's calls each get their own). */
const WIRE_METHODS = new Set(['GET', 'POST']);

/**
 * Refuses a `/trpc` request whose path or method is wrong before tRPC's adapter sees it, in
 * the documented order: an unknown procedure is a 404, a method no procedure of the path
 * accepts a 405 with `Allow`. The adapter would check the content type first (415 for a PUT),
 * answer any HEAD with 204, and fail with 500 on a TRACE, which a Fetch `Request` refuses.
 * A GET or POST batch that names an unknown procedure or mixes kinds is left to the adapter,
 * which answers each call on its own.
 */
export function refuseMethodOrPath(
  operations: ReadonlyMap<string, AnyOperation>,
  procedures: readonly string[],
  batch: boolean,
  state: RequestState,
): Endpoint | undefined {
  const { method } = state;
  const perCall = batch && WIRE_METHODS.has(method);
  const kinds = procedures.map((path) => operations.get(path)?.kind);
  const unknown = procedures.find((_, index) => kinds[index] === undefined);
  if (unknown !== undefined) {
    if (perCall) return undefined;
    return refusal('unmatched', () => {
      return new TRPCError({
        code: 'NOT_FOUND',
        message: `No procedure found on path "${unknown}"`,
      });
    });
  }
  const known = kinds.filter((kind) => kind !== undefined);
  if (known.some((kind) => ACCEPTED[kind].includes(method))) return undefined;
  const allow = [...new Set(known.flatMap((kind) => ACCEPTED[kind]))].sort().join(', ');
  return refusal('unmatched', () => {
    state.headers.allow = allow;
    return new TRPCError({
      code: 'METHOD_NOT_SUPPORTED',
      message: `${method} is not supported on ${state.path}; allowed: ${allow}`,
    });
  });
}
