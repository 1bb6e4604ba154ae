import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { getErrorShape, type TRPCErrorShape } from '@trpc/server/unstable-core-do-not-import';
import type { Context } from '../context.js';
import { MAX_BODY_BYTES } from './body.js';
import { sendJson } from './respond.js';

export function createTrpcHandler(router: AnyTRPCRouter) {
  return (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    ctx: Context,
    stateHeaders: Record<string, string>,
    onError: (error: TRPCError) => void,
  ): Promise<void> =>
    nodeHTTPRequestHandler({
      router,
      req,
      res,
      path,
      maxBodySize: MAX_BODY_BYTES,
      createContext: () => ctx,
      responseMeta: () => ({ headers: { ...stateHeaders, ...ctx.responseHeaders } }),
      onError: ({ error }) => {
        onError(error);
      },
    });
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
