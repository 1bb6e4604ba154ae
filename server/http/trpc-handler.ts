import type { ServerResponse } from 'node:http';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { getErrorShape, type TRPCErrorShape } from '@trpc/server/unstable-core-do-not-import';
import { MAX_BODY_BYTES } from './body.js';
import { sendJson, setHeaders } from './respond.js';
import { createLeanTrpcHandler, trpcAnswerHeaders, type TrpcCallHandler } from './trpc-lean.js';

/**
 * `/trpc` calls: plain ones on the lean path, the rest (batches, subscriptions, a wrong method,
 * an unknown procedure, a non-JSON body) through tRPC's own node adapter. `lean: false` sends
 * every call to the adapter, so tests can compare both paths' answers.
 */
export function createTrpcHandler(
  router: AnyTRPCRouter,
  options: { lean: boolean },
): TrpcCallHandler<Promise<void>> {
  const lean = options.lean ? createLeanTrpcHandler(router) : undefined;
  const viaAdapter: TrpcCallHandler<Promise<void>> = (req, res, state, path, ctx, onError) => {
    // The adapter answers some requests without responseMeta (HEAD, its own failures), so the
    // headers every answer carries are on `res` before it runs; responseMeta adds the
    // procedure's own (Location, Link) once it has run.
    setHeaders(res, trpcAnswerHeaders(state, ctx));
    return nodeHTTPRequestHandler({
      router,
      req,
      res,
      path,
      maxBodySize: MAX_BODY_BYTES,
      createContext: () => ctx,
      responseMeta: () => ({ headers: trpcAnswerHeaders(state, ctx) }),
      onError: ({ error }) => {
        onError(error);
      },
    });
  };
  return (req, res, state, path, ctx, onError) =>
    lean?.(req, res, state, path, ctx, onError) ?? viaAdapter(req, res, state, path, ctx, onError);
}

/** An error raised before tRPC runs (authentication), in tRPC's own envelope so clients read it. */
export function sendTrpcError(
  res: ServerResponse,
  router: AnyTRPCRouter,
  error: TRPCError,
  headers: Record<string, string>,
): void {
  const shape = getErrorShape({
    config: router._def._config,
    error,
    type: 'unknown',
    path: undefined,
    input: undefined,
    ctx: undefined,
  }) as TRPCErrorShape;
  sendJson(res, getHTTPStatusCodeFromError(error), { error: shape }, headers);
}
