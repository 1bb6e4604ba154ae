import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import type { DatabaseHandle } from '../../db/client.js';
import { readBearer, type Authenticator, type Principal } from '../auth/authenticator.js';
import { createContextInner, type Context } from '../context.js';
import { toTRPCError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RateLimiter } from '../rate-limit/limiter.js';
import { createCors } from './cors.js';
import { createPublicRoutes } from './public-routes.js';
import { enforceRateLimit } from './rate-limit.js';
import { notFound, createRequestState, type RequestState } from './request-state.js';
import { sendError } from './respond.js';
import { createRestHandler } from './rest-handler.js';
import { createTrpcHandler, sendTrpcError } from './trpc-handler.js';

export interface HandlerDeps {
  router: AnyTRPCRouter;
  database: DatabaseHandle;
  authenticator: Authenticator;
  /** Absent when rate limiting is off. */
  rateLimiter?: RateLimiter | undefined;
  logger: Logger;
  openApiDocument: object;
  trustProxy: boolean;
  /** Browser origins allowed to call the API (CORS); empty allows none. */
  corsOrigins: readonly string[];
  /** Used for links when the request's own Host header is unusable. */
  fallbackOrigin: string;
  cursorSecret?: string | undefined;
  /** Plain tRPC calls skip tRPC's node adapter (server/http/trpc-lean.ts). */
  leanTrpc: boolean;
}

const REALM = 'Bearer realm="petstore"';
/** Answers that depend on the caller's key must not be kept by any cache on the way. */
const NO_STORE = 'no-store';

export function createRequestHandler(deps: HandlerDeps) {
  const { router, database, authenticator, logger } = deps;
  const publicRoutes = createPublicRoutes(deps);
  const cors = createCors(deps.corsOrigins);
  const logServerError = (error: TRPCError, state: RequestState) => {
    if (error.code === 'INTERNAL_SERVER_ERROR' || error.code === 'SERVICE_UNAVAILABLE') {
      logger.error({ err: error.cause ?? error, reqId: state.requestId }, error.message);
    }
  };
  const rest = createRestHandler(router);

  async function authenticate(req: IncomingMessage, state: RequestState): Promise<Principal> {
    const credentials = readBearer(req.headers.authorization);
    const principal =
      credentials.kind === 'token' ? await authenticator.authenticate(credentials.token) : null;
    if (principal) {
      state.keyId = principal.keyId;
      return principal;
    }
    const missing = credentials.kind === 'missing';
    state.headers['www-authenticate'] = missing ? REALM : `${REALM}, error="invalid_token"`;
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: missing ? 'Missing API key: send Authorization: Bearer <key>' : 'Invalid API key',
    });
  }

  async function contextFor(req: IncomingMessage, state: RequestState): Promise<Context> {
    const principal = await authenticate(req, state);
    await enforceRateLimit(deps.rateLimiter, principal.keyId, state);
    return createContextInner({
      db: database.db,
      principal,
      baseUrl: `${state.origin}/v1`,
      cursorSecret: deps.cursorSecret,
      // headersDistinct builds a copy of every header: only worth it when the header is there.
      idempotencyKey:
        req.headers['idempotency-key'] === undefined
          ? undefined
          : req.headersDistinct['idempotency-key']?.join(', '),
    });
  }

  async function route(req: IncomingMessage, res: ServerResponse, state: RequestState) {
    const path = state.url.pathname;
    const publicRoute = publicRoutes.get(path);
    if (publicRoute) return publicRoute(req, res, state);
    if (path === '/v1' || path.startsWith('/v1/')) {
      state.headers['cache-control'] = NO_STORE;
      const restPath = path.slice('/v1'.length) || '/';
      const match = rest.match(req.method ?? 'GET', restPath, state);
      const ctx = await contextFor(req, state);
      return rest.handle(req, res, state, match, ctx);
    }
    if (path.startsWith('/trpc/')) {
      state.headers['cache-control'] = NO_STORE;
      // Procedure paths hold no ids, so the path itself is the route template for logs.
      state.route = path;
      const ctx = await contextFor(req, state);
      return trpc(req, res, state, path.slice('/trpc/'.length), ctx, (error) => {
        logServerError(error, state);
      });
    }
    throw notFound(state, req.method);
  }

  const trpc = createTrpcHandler(router, { lean: deps.leanTrpc });

  return (req: IncomingMessage, res: ServerResponse): void => {
    const state = createRequestState(req, deps);
    res.once('finish', () => {
      if (state.route === '/healthz' || state.route === '/readyz') return;
      logger.info({
        reqId: state.requestId,
        method: req.method,
        route: state.route ?? 'unmatched',
        status: res.statusCode,
        durationMs: Math.round((performance.now() - state.startedAt) * 10) / 10,
        keyId: state.keyId,
      });
    });
    if (cors(req, state.headers)) {
      state.route = 'CORS preflight';
      res.writeHead(204, state.headers);
      res.end();
      return;
    }
    route(req, res, state).catch((cause: unknown) => {
      const error = toTRPCError(cause);
      logServerError(error, state);
      if (res.headersSent || error.code === 'CLIENT_CLOSED_REQUEST') {
        res.destroy();
        return;
      }
      // The unread rest of a refused body must not be taken for the next request.
      if (error.code === 'PAYLOAD_TOO_LARGE') state.headers.connection = 'close';
      if (state.url.pathname.startsWith('/trpc/')) sendTrpcError(res, router, error, state.headers);
      else sendError(res, error, state.headers);
    });
  };
}
