import type { IncomingMessage } from 'node:http';
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import type { AnyOperation, Operation } from '../../../operations/define.js';
import { execute } from '../../../operations/execute.js';
import { MAX_BODY_BYTES } from '../pipeline/body.js';
import { refusal, type Call, type Endpoint } from '../pipeline/endpoint.js';
import type { RequestState } from '../pipeline/request-state.js';
import { sendJson, setHeaders } from '../pipeline/respond.js';
import { refuseMethodOrPath } from './methods.js';
import { parseTrpcQuery, type TrpcQuery } from './query.js';

const JSON_BODY = ['application/json'] as const;
/** tRPC's adapter sends it on every answer; caches in front must not see a difference. */
/** What tRPC's wire reads beyond the document: answers vary by them, and browsers send them. */
export const TRPC_REQUEST_HEADERS = ['trpc-accept', 'accept'];
const VARY = TRPC_REQUEST_HEADERS.join(', ');

export interface TrpcEndpointOptions {
  router: AnyTRPCRouter;
  /**
   * The registry: every procedure the router serves under its path, the only names a call is
   * labelled with; the fast path runs its queries and mutations.
   */
  operations: ReadonlyMap<string, AnyOperation>;
  /** False sends every call through tRPC's adapter (the wire test compares the two). */
  fastPath: boolean;
  /** Calls one batch may hold. */
  maxBatchCalls: number;
  onError: (error: TRPCError, state: RequestState) => void;
}

/** A query by GET or a mutation by POST, not batched, asking for plain JSON. */
function isPlainCall(req: IncomingMessage, operation: Operation, query: TrpcQuery): boolean {
  if (query.batch || query.other) return false;
  if (req.headers['trpc-accept'] !== undefined) return false;
  if (req.headers.accept?.includes('application/jsonl')) return false;
  return req.method === (operation.kind === 'query' ? 'GET' : 'POST');
}

/**
 * `/trpc/<path>` requests. A plain call of one operation runs it as REST does (the same
 * `execute`) and writes tRPC's envelope; an unknown procedure or a method it does not take is
 * refused here (./methods.ts); everything else (batches, subscriptions, calls sent otherwise)
 * goes to tRPC's own node adapter, with the body the pipeline already read and checked.
 */
export function createTrpcEndpoints(options: TrpcEndpointOptions) {
  const { router, operations, onError } = options;
  /** A procedure the router has, `batch`, or `unmatched`: never a path a caller made up. */
  const operationOf = (procedures: string, calls: number) => {
    if (calls > 1) return 'batch';
    return operations.has(procedures) ? procedures : 'unmatched';
  };

  const fastEndpoint = (operation: Operation, path: string, query: TrpcQuery): Endpoint => ({
    name: `/trpc/${path}`,
    operation: path,
    calls: 1,
    bodyTypes: operation.kind === 'mutation' ? JSON_BODY : undefined,
    bodyOptional: true,
    serve: async ({ res, state, ctx, body }: Call) => {
      const data = await execute(operation, ctx, body ? body.value : query.input);
      sendJson(res, 200, { result: { data } }, state.headers);
    },
  });

  const adapterEndpoint = (
    req: IncomingMessage,
    path: string,
    procedures: string,
    calls: number,
  ): Endpoint => ({
    name: `/trpc/${path}`,
    operation: operationOf(procedures, calls),
    calls,
    bodyTypes: req.method === 'POST' ? JSON_BODY : undefined,
    bodyOptional: true,
    serve: ({ req, res, state, ctx, body }: Call) => {
      // tRPC's adapter reads a body that an earlier layer read from `req.body`.
      if (body) Object.assign(req, { body: body.text });
      // Some answers the adapter writes without responseMeta (HEAD, its own failures).
      setHeaders(res, state.headers);
      return nodeHTTPRequestHandler({
        router,
        req,
        res,
        path,
        maxBodySize: MAX_BODY_BYTES,
        // Checked before the key's budget was spent; the adapter's own check is a second guard.
        maxBatchSize: options.maxBatchCalls,
        createContext: () => ctx,
        responseMeta: () => ({ headers: state.headers }),
        onError: ({ error }) => {
          onError(error, state);
        },
      });
    },
  });

  const select = (req: IncomingMessage, state: RequestState): Endpoint => {
    // The adapter is given the path as sent and decodes it once, as we do here to count the
    // calls: `pets.create%2Cpets.create` is a batch of two to tRPC, so it is one to us too.
    const path = state.path.slice('/trpc/'.length);
    const procedures = decodePath(path);
    const query = parseTrpcQuery(state.query);
    const paths = query.batch ? procedures.split(',') : [procedures];
    const calls = paths.length;
    if (calls > options.maxBatchCalls) {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: `A batch may hold at most ${options.maxBatchCalls} calls; this one holds ${calls}`,
      });
    }
    const refused = refuseMethodOrPath(operations, paths, query.batch, state);
    if (refused) return refused;
    const operation = options.fastPath ? operations.get(procedures) : undefined;
    // A subscription streams over tRPC's SSE wire, which only the adapter writes.
    return operation && operation.kind !== 'subscription' && isPlainCall(req, operation, query)
      ? fastEndpoint(operation, procedures, query)
      : adapterEndpoint(req, path, procedures, calls);
  };

  return (req: IncomingMessage, state: RequestState): Endpoint => {
    state.headers.vary = state.headers.vary ? `${VARY}, ${state.headers.vary}` : VARY;
    try {
      return select(req, state);
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      // Refused once the caller is authenticated, as REST refuses a path it does not serve.
      return refusal('unmatched', () => error);
    }
  };
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'The procedure path is not valid percent-encoding',
    });
  }
}
