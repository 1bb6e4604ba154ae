import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import {
  getErrorShape,
  getHTTPStatusCode,
  getTRPCErrorFromUnknown,
  isAsyncIterable,
  isObject,
  isPromise,
  transformTRPCResponse,
  type AnyRootTypes,
  type RootConfig,
  type TRPCErrorShape,
  type TRPCResponse,
} from '@trpc/server/unstable-core-do-not-import';
import type { Context } from '../context.js';
import { createProcedureCaller } from '../procedure-call.js';
import type { RequestState } from './request-state.js';
import { sendJson } from './respond.js';
import { leanCallOf, type LeanCall } from './trpc-lean-call.js';

/** The adapter sends it on every answer; caches in front must not see a difference. */
const VARY = 'trpc-accept, accept';

/** The headers of a `/trpc` answer on either path: tRPC's Vary joined with CORS's `Origin`. */
export function trpcAnswerHeaders(state: RequestState, ctx: Context): Record<string, string> {
  // `vary` first: V8 adds a new key to a copy made by a spread through a slow path (~1-2 µs).
  const headers = { vary: VARY, ...state.headers, ...ctx.responseHeaders };
  if (state.headers.vary) headers.vary = `${VARY}, ${state.headers.vary}`;
  return headers;
}

/** A result tRPC will not send as one JSON answer: it needs a streaming link. */
function isDataStream(data: unknown): boolean {
  if (!isObject(data)) return false;
  if (isAsyncIterable(data)) return true;
  const values = Object.values(data);
  return values.some(isPromise) || values.some(isAsyncIterable);
}

/** What a `/trpc` call is handed once its context is built; the same on both paths. */
export type TrpcCallHandler<Result> = (
  req: IncomingMessage,
  res: ServerResponse,
  state: RequestState,
  path: string,
  ctx: Context,
  onError: (error: TRPCError) => void,
) => Result;

interface Outcome {
  envelope: TRPCResponse;
  error?: TRPCError;
}

/**
 * Plain tRPC calls (see leanCallOf) answered without tRPC's node adapter, which builds a WHATWG
 * Request, an AbortController that is never aborted after a normal answer, and a web stream per
 * call. The procedure runs as tRPC's own runner runs it (server/procedure-call.ts), and the
 * answer is the one the adapter's resolveResponse builds, byte for byte, sent with
 * Content-Length instead of chunked. Returns undefined for a request it leaves to the adapter.
 */
export function createLeanTrpcHandler(router: AnyTRPCRouter) {
  // AnyTRPCRouter types its config with `any`; every router's config is a RootConfig of some root.
  const config = router._def._config as RootConfig<AnyRootTypes>;
  const procedures = createProcedureCaller(router);

  async function outcomeOf(
    call: LeanCall,
    path: string,
    ctx: Context,
    onError: (error: TRPCError) => void,
  ): Promise<Outcome> {
    const failed = (error: TRPCError, at: string | undefined, input: unknown): Outcome => {
      onError(error);
      const shape = getErrorShape({
        config,
        error,
        type: call.type,
        path: at,
        input,
        ctx,
      }) as TRPCErrorShape;
      return { envelope: { error: shape }, error };
    };
    let data: unknown;
    try {
      data = await procedures.call({ path, type: call.type, ctx, getRawInput: call.getRawInput });
    } catch (cause) {
      return failed(getTRPCErrorFromUnknown(cause), path, call.readInput());
    }
    if (isDataStream(data)) {
      // The adapter refuses it after the call, so its answer names neither path nor input.
      const refusal = new TRPCError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message:
          'Cannot use stream-like response in non-streaming request - use httpBatchStreamLink',
      });
      return failed(refusal, undefined, undefined);
    }
    return { envelope: { result: { data } } };
  }

  const handle: TrpcCallHandler<Promise<void> | undefined> = (
    req,
    res,
    state,
    path,
    ctx,
    onError,
  ) => {
    const call = leanCallOf(router, req, state.url, path);
    if (!call) return undefined;
    return outcomeOf(call, path, ctx, onError).then(({ envelope, error }) => {
      const headers = trpcAnswerHeaders(state, ctx);
      // readBody stopped reading: the rest of the body must not be taken for the next request.
      if (error?.code === 'PAYLOAD_TOO_LARGE') headers.connection = 'close';
      // The status from the formatted shape, as the adapter takes it, not from the error's code.
      const status = getHTTPStatusCode(envelope, error ? [error] : []);
      sendJson(res, status, transformTRPCResponse(config, envelope), headers);
    });
  };
  return handle;
}
