import { TRPCError } from '@trpc/server';
import type { DatabaseHandle } from '../../../../db/client.js';
import type { PublicEndpoint } from '../pipeline/endpoint.js';
import { sendError, sendJson } from '../pipeline/respond.js';
import { summarizeError } from '../../../support/error-summary.js';
import type { Logger } from '../../../support/logger.js';
import { withinTime } from '../../../../db/within-time.js';
import { docsRoutes } from './docs.js';

type PublicRoute = PublicEndpoint['serve'];

/** `GET /`: where the API, its description and its reference page are. */
const ROOT = {
  service: 'petstore',
  docs: '/docs',
  openapi: '/v1/openapi.json',
  rest: '/v1',
  trpc: '/trpc',
  health: '/healthz',
};

const READY_TIMEOUT_MS = 2_000;

const NOT_PREPARED = new Error('the start-up work has not run on the database yet');

const NOT_READY = new TRPCError({
  code: 'SERVICE_UNAVAILABLE',
  message: 'The database is not answering',
});

/**
 * Probes come every few seconds from every balancer, so a probe writes no line of its own:
 * the log says when readiness changes, once, with why it was lost.
 */
function readiness(database: DatabaseHandle, prepared: () => boolean, logger: Logger): PublicRoute {
  let ready = true;
  return async (_req, res, state) => {
    try {
      if (!prepared()) throw NOT_PREPARED;
      await withinTime(database.ping(), READY_TIMEOUT_MS);
    } catch (cause) {
      if (ready) {
        logger.warn(
          { err: summarizeError(cause, { stack: false }) },
          'not ready: the database is not answering',
        );
      }
      ready = false;
      sendError(res, NOT_READY, state.headers);
      return;
    }
    if (!ready) logger.info('ready again: the database answers');
    ready = true;
    sendJson(res, 200, { status: 'ready' }, state.headers);
  };
}

function readOnly(name: string, serve: PublicRoute): PublicEndpoint {
  return {
    name,
    serve: async (req, res, state) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        state.headers.allow = 'GET, HEAD';
        throw new TRPCError({
          code: 'METHOD_NOT_SUPPORTED',
          message: `${req.method ?? ''} is not supported on ${name}; allowed: GET, HEAD`,
        });
      }
      await serve(req, res, state);
    },
  };
}

/** Endpoints that need no API key: health, readiness, the interface description and its page. */
export function createPublicRoutes(deps: {
  database: DatabaseHandle;
  prepared: () => boolean;
  logger: Logger;
  openApiDocument: { servers?: { url: string }[] };
}) {
  const openApiJson = JSON.stringify(deps.openApiDocument);
  return new Map<string, PublicEndpoint>([
    [
      '/',
      // Someone who opens the bare address learns where to go, rather than meeting a 404.
      readOnly('/', (_req, res, state) => {
        sendJson(res, 200, ROOT, state.headers);
        return Promise.resolve();
      }),
    ],
    [
      '/healthz',
      readOnly('/healthz', (_req, res, state) => {
        sendJson(res, 200, { status: 'ok' }, state.headers);
        return Promise.resolve();
      }),
    ],
    ['/readyz', readOnly('/readyz', readiness(deps.database, deps.prepared, deps.logger))],
    [
      '/v1/openapi.json',
      readOnly('/v1/openapi.json', (_req, res, state) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(openApiJson),
          ...state.headers,
        });
        res.end(openApiJson);
        return Promise.resolve();
      }),
    ],
    ...docsRoutes(deps.openApiDocument).map(([path, serve]): [string, PublicEndpoint] => [
      path,
      readOnly(path.startsWith('/docs/assets/') ? '/docs/assets' : path, (req, res, state) => {
        serve(req, res, state.headers);
        return Promise.resolve();
      }),
    ]),
  ]);
}
