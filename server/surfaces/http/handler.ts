import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import type { OpenAPIObject } from 'trpc-to-openapi';
import type { DatabaseHandle } from '../../../db/client.js';
import type { Authenticator } from '../../domain/auth/authenticator.js';
import type { FailureBudget } from '../../domain/auth/failure-budget.js';
import type { ChangeNotifier } from '../../domain/events/notifier.js';
import type { ServiceMetrics } from '../../support/service-metrics.js';
import { StreamsClosingError, type EventStreams } from '../../domain/events/streams.js';
import type { AnyOperation } from '../../operations/define.js';
import { summarizeError } from '../../support/error-summary.js';
import type { Logger } from '../../support/logger.js';
import type { RateLimiter } from '../../domain/rate-limit/limiter.js';
import { documentedHeaders } from '../openapi/header-names.js';
import { createContextInner, type OperationSettings } from '../../operations/context.js';
import { toTRPCError } from '../trpc/errors.js';
import { createPublicRoutes } from './public/routes.js';
import { createRestEndpoints, notFound } from './rest/endpoints.js';
import { createTrpcEndpoints, TRPC_REQUEST_HEADERS } from './fast-path/endpoints.js';
import { checkConditionalFields } from '../../domain/versions/etag.js';
import { POSITION_HEADER } from '../../domain/versions/position.js';
import { authenticate } from './pipeline/authenticate.js';
import { readJsonBody } from './pipeline/body.js';
import { createCors } from './pipeline/cors.js';
import { NO_PATH_PARAMS, type Match } from './pipeline/endpoint.js';
import { enforceRateLimit } from './pipeline/rate-limit.js';
import {
  createRequestState,
  REQUEST_ID_HEADER,
  type RequestState,
} from './pipeline/request-state.js';
import { httpRoute } from './pipeline/http-route.js';
import { TRACE_CONTEXT_HEADER } from './pipeline/trace-context.js';
import { sendError, sendTrpcError } from './pipeline/respond.js';
import { refuseRepeated, repeatedSingleton } from './pipeline/singleton-headers.js';

export interface HandlerDeps {
  router: AnyTRPCRouter;
  operations: ReadonlyMap<string, AnyOperation>;
  streams: EventStreams;
  notifier: ChangeNotifier;
  database: DatabaseHandle;
  /** False until the start-up work has run on the database; nothing may use it before. */
  prepared: () => boolean;
  authenticator: Authenticator;
  /** Absent when rate limiting is off. */
  rateLimiter?: RateLimiter | undefined;
  /** Failed authentications per client address; absent when that limit is off. */
  authFailures?: FailureBudget | undefined;
  logger: Logger;
  metrics: ServiceMetrics;
  openApiDocument: OpenAPIObject;
  trustProxy: boolean;
  /** Browser origins allowed to call the API (CORS); empty allows none. */
  corsOrigins: readonly string[];
  /** Used for links when the request's own Host header is unusable. */
  fallbackOrigin: string;
  cursorSecret?: string | undefined;
  /** Plain `/trpc` calls run as REST runs them; false sends them all to tRPC's adapter. */
  trpcFastPath: boolean;
  /** Calls one tRPC batch may hold. */
  maxBatchCalls: number;
  /** The deployment's settings of the operations' modules. */
  operationSettings?: OperationSettings | undefined;
}

const SERVER_FAILURES: Partial<Record<TRPCError['code'], string>> = {
  INTERNAL_SERVER_ERROR: 'request failed: internal error',
  SERVICE_UNAVAILABLE: 'request failed: the database is unavailable',
};

const NOT_PREPARED = new TRPCError({
  code: 'SERVICE_UNAVAILABLE',
  message: 'The database is not answering yet',
});

/** Answers that depend on the caller's key must not be kept by any cache on the way. */
const NO_STORE = 'no-store';

/**
 * The one request pipeline of both surfaces, in the contract's order: route once, authenticate
 * once, spend the key's rate limit, read and check the body once, then run the endpoint. The
 * database budget (RequestState) covers the key lookup and the operation, not the client's
 * upload. Every answer carries the headers collected in the request's state.
 */
export function createRequestHandler(deps: HandlerDeps) {
  const { database, logger } = deps;
  const publicRoutes = createPublicRoutes(deps);
  const rest = createRestEndpoints(deps.operations);
  const documented = documentedHeaders(deps.openApiDocument);
  const cors = createCors(deps.corsOrigins, rest.methods, {
    allowed: [
      ...documented.request,
      REQUEST_ID_HEADER,
      TRACE_CONTEXT_HEADER,
      ...TRPC_REQUEST_HEADERS,
    ],
    exposed: documented.response,
  });
  // One line per failed request, with what an operator needs to match it to its request and
  // its cause; never the error's message, which may quote the statement's values.
  const logServerError = (error: TRPCError, state: RequestState) => {
    // Streams ended or refused by a shutdown are the shutdown working, not a failure.
    if (error.cause instanceof StreamsClosingError) return;
    const message = SERVER_FAILURES[error.code];
    if (!message) return;
    const stack = error.code === 'INTERNAL_SERVER_ERROR';
    logger.error(
      {
        reqId: state.requestId,
        trace_id: state.trace.traceId,
        err: summarizeError(error.cause ?? error, { stack }),
      },
      message,
    );
  };
  const trpc = createTrpcEndpoints({
    router: deps.router,
    operations: deps.operations,
    fastPath: deps.trpcFastPath,
    maxBatchCalls: deps.maxBatchCalls,
    onError: logServerError,
  });

  function route(req: IncomingMessage, state: RequestState): Match {
    const publicEndpoint = publicRoutes.get(state.path);
    if (publicEndpoint) return { public: true, endpoint: publicEndpoint };
    if (state.path === '/v1' || state.path.startsWith('/v1/')) return rest.match(state);
    if (state.surface === 'trpc') {
      return { public: false, endpoint: trpc(req, state), params: NO_PATH_PARAMS };
    }
    throw notFound(state);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, state: RequestState) {
    const repeated = repeatedSingleton(req);
    // Which host the request is for decides everything after, links included.
    if (repeated === 'Host') throw refuseRepeated(repeated);
    const match = route(req, state);
    state.route = match.endpoint.name;
    state.operation = match.public ? match.endpoint.name : match.endpoint.operation;
    if (match.public) return match.endpoint.serve(req, res, state);
    const { endpoint, params } = match;
    state.headers['cache-control'] = NO_STORE;
    // Before its migrations ran, the database may lack the tables a request would read.
    if (!deps.prepared()) throw NOT_PREPARED;
    const principal = await authenticate(deps, req, state, {
      repeated: repeated === 'Authorization',
      tickets: endpoint.acceptsTicket ? deps.streams.tickets : undefined,
    });
    await enforceRateLimit(
      deps.rateLimiter,
      principal.keyId,
      endpoint.calls,
      state,
      deps.metrics.rateLimitRefusals,
    );
    if (repeated) throw refuseRepeated(repeated);
    checkConditionalFields(req.headers['if-match'], req.headers['if-none-match']);
    const body = endpoint.bodyTypes
      ? await readJsonBody(req, endpoint.bodyTypes, { optional: endpoint.bodyOptional })
      : undefined;
    const ctx = createContextInner({
      db: database.db,
      principal,
      baseUrl: `${state.origin}/v1`,
      cursorSecret: deps.cursorSecret,
      // A repeated header was refused above, so this is the one value sent.
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      ifMatch: req.headers['if-match'],
      ifNoneMatch: req.headers['if-none-match'],
      budget: state.budget,
      responseHeaders: state.headers,
      streams: deps.streams,
      closeConnection: () => res.destroy(),
      notifyChange: deps.notifier.changed,
      settings: deps.operationSettings,
      replicas: database.replicas,
      // Node joins a repeated header with commas, which no position has: the read refuses it.
      position: req.headers[POSITION_HEADER] as string | undefined,
    });
    await endpoint.serve({ req, res, state, ctx, body, params });
  }

  function fail(res: ServerResponse, state: RequestState, cause: unknown) {
    const error = toTRPCError(cause);
    logServerError(error, state);
    if (res.headersSent || error.code === 'CLIENT_CLOSED_REQUEST') {
      res.destroy();
      return;
    }
    // The unread rest of a refused body must not be taken for the next request.
    if (error.code === 'PAYLOAD_TOO_LARGE') state.headers.connection = 'close';
    if (state.surface === 'trpc') {
      sendTrpcError(res, error, state.path.slice('/trpc/'.length), state.headers);
    } else sendError(res, error, state.headers);
  }

  const { requestDuration } = deps.metrics;
  const stateOptions = { ...deps, databaseWork: deps.metrics.databaseWork };

  return (req: IncomingMessage, res: ServerResponse): void => {
    const state = createRequestState(req, stateOptions);
    // 'close' rather than 'finish': a client that leaves early (an event stream it stops
    // following) is logged too, marked as aborted. `on`: a response closes once.
    res.on('close', () => {
      const durationMs = performance.now() - state.startedAt;
      requestDuration.observe(
        {
          http_request_method: state.method,
          http_route: httpRoute(state),
          operation: state.operation ?? 'unmatched',
          http_response_status_code: res.statusCode,
        },
        durationMs / 1000,
      );
      if (state.route === '/healthz' || state.route === '/readyz') return;
      logger.info({
        reqId: state.requestId,
        // OpenTelemetry's names for log records, which log pipelines link to traces by.
        trace_id: state.trace.traceId,
        span_id: state.trace.spanId,
        method: req.method,
        route: state.route ?? 'unmatched',
        status: res.statusCode,
        durationMs: Math.round(durationMs * 10) / 10,
        keyId: state.keyId,
        ...(res.writableFinished ? {} : { aborted: true }),
      });
    });
    if (cors(req, state.headers)) {
      state.route = 'CORS preflight';
      state.operation = state.route;
      res.writeHead(204, state.headers);
      res.end();
      return;
    }
    handle(req, res, state).catch((cause: unknown) => {
      fail(res, state, cause);
    });
  };
}
