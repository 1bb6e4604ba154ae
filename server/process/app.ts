import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyTRPCRouter } from '@trpc/server';
import type { DatabaseHandle } from '../../db/client.js';
import { events, idempotencyKeys, streamTickets } from '../../db/schema.js';
import { Authenticator } from '../domain/auth/authenticator.js';
import { createRequestHandler } from '../surfaces/http/handler.js';
import { trackInFlight } from '../surfaces/http/pipeline/in-flight.js';
import {
  fastPathVerified,
  installedTrpcVersion,
  TRPC_WIRE_VERSION,
} from '../surfaces/http/fast-path/wire.js';
import { createChangeNotifier } from '../domain/events/notifier.js';
import { startEventRetention } from '../domain/events/retention.js';
import { EventStreams } from '../domain/events/streams.js';
import { startIdempotencyPurge } from '../domain/idempotency/purge.js';
import { ServiceMetrics } from '../support/service-metrics.js';
import { buildOpenApiDocument } from '../surfaces/openapi/document.js';
import { createFailureBudget } from '../domain/auth/failure-budget.js';
import { createRateLimiter, type RateLimiter } from '../domain/rate-limit/limiter.js';
import { connectRedis } from '../domain/rate-limit/redis-health.js';
import type { RateLimitSetting } from '../domain/rate-limit/policy.js';
import type { AnyOperation } from '../operations/define.js';
import { appRouter } from '../surfaces/trpc/router.js';
import { operations } from '../operations/registry.js';
import { summarizeError } from '../support/error-summary.js';
import { startEmbeddedMaintenance, vacuumAfterPurgeBatch } from './maintenance.js';
import type { Logger } from '../support/logger.js';

/** The procedures an app serves: the service's own unless a test serves others. */
export interface Api {
  router: AnyTRPCRouter;
  /** Every procedure the router serves, subscriptions included, under its path. */
  operations: ReadonlyMap<string, AnyOperation>;
}

export interface AppOptions {
  api?: Api;
  database: DatabaseHandle;
  /**
   * False while the start-up work (migrations, the key check) waits for the database: every
   * request that needs it is then 503, and so is `/readyz`. Tests' databases are ready.
   */
  prepared?: () => boolean;
  logger: Logger;
  /** The app's metrics; its own when absent (served only where serve() opens METRICS_PORT). */
  metrics?: ServiceMetrics;
  apiKeys: readonly string[];
  publicBaseUrl: string;
  stagingBaseUrl?: string | undefined;
  trustProxy: boolean;
  rateLimit: RateLimitSetting;
  /** Failed authentications per client address before unknown keys get no lookup. */
  authFailureLimit?: RateLimitSetting;
  /** Shares rate-limit counts across processes; without it each process counts alone. */
  redisUrl?: string | undefined;
  /** Signs pagination cursors; see CURSOR_SECRET in the README. */
  cursorSecret?: string | undefined;
  corsOrigins?: readonly string[];
  /** Defaults suit production; tests lower them to prove slow clients are cut off. */
  timeouts?: Partial<HttpTimeouts>;
  /** Calls one tRPC batch may hold (TRPC_MAX_BATCH). */
  maxBatchCalls?: number;
  /** Event streams one key may hold open (EVENT_STREAMS_PER_KEY, default 20). */
  eventStreamsPerKey?: number;
  /** How long events are kept (EVENTS_RETENTION, default 7 days), in seconds. */
  eventRetentionSeconds?: number;
  /** Events queued for one stream at most; past it, the stream reads the log at its own pace. */
  eventStreamBuffer?: number;
  /** Seconds between the embedded database's maintenance rounds (PGLITE_MAINTENANCE_INTERVAL). */
  maintenanceIntervalSeconds?: number;
  /** How long a stream may stay behind after its queue overflowed (EVENT_STREAM_MAX_LAG). */
  eventStreamMaxLagSeconds?: number;
  /** How long a stream ticket stays valid (EVENT_TICKET_TTL, default 60 s). */
  eventTicketTtlSeconds?: number;
  /**
   * Plain tRPC calls skip tRPC's node adapter (default); false sends every `/trpc` call through
   * it, which the wire test compares against.
   */
  trpcFastPath?: boolean;
}

const DEFAULT_MAX_BATCH_CALLS = 20;
const DEFAULT_AUTH_FAILURE_LIMIT: RateLimitSetting = { limit: 30, windowSeconds: 60 };
const DEFAULT_STREAMS_PER_KEY = 20;
const DEFAULT_EVENT_RETENTION_SECONDS = 7 * 86_400;
const DEFAULT_MAINTENANCE_INTERVAL_SECONDS = 60;
/** Some hundred KB per stream at most: a client that falls further behind reads the log. */
const DEFAULT_STREAM_BUFFER = 1_000;
const DEFAULT_STREAM_MAX_LAG_SECONDS = 30;

/**
 * The fast `/trpc` path writes tRPC's wire format itself, so it runs only on the tRPC version
 * that format was checked against; on any other, every call goes through tRPC's adapter.
 */
function useTrpcFastPath(requested: boolean, logger: Logger): boolean {
  if (!requested) return false;
  if (fastPathVerified()) return true;
  logger.warn(
    { installed: installedTrpcVersion(), verified: TRPC_WIRE_VERSION },
    "@trpc/server is not the version the fast /trpc path was checked against; every /trpc call goes through tRPC's adapter",
  );
  return false;
}

export interface HttpTimeouts {
  /** The whole request, headers and body, must arrive within this. */
  requestMs: number;
  headersMs: number;
  keepAliveMs: number;
}

const DEFAULT_TIMEOUTS: HttpTimeouts = {
  requestMs: 30_000,
  headersMs: 10_000,
  // Longer than a load balancer's usual idle timeout (60 s), so the balancer closes an idle
  // connection first and never sends a request down one we are closing.
  keepAliveMs: 65_000,
};

export interface App {
  server: Server;
  authenticator: Authenticator;
  rateLimiter: RateLimiter | undefined;
  metrics: ServiceMetrics;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Ends the response's connection once the response is finished (every byte handed to the
 * socket, sent before the FIN). For answers whose headers say keep-alive whatever we set: a
 * stream open when shutdown began, and tRPC's SSE answers, whose headers it writes itself.
 * An EventSource would otherwise reconnect on the same connection and hold shutdown open.
 */
function endConnectionAfter(res: ServerResponse): void {
  res.once('finish', () => {
    res.socket?.end();
  });
}

export function createApp(options: AppOptions): App {
  const { database, logger } = options;
  const api = options.api ?? { router: appRouter, operations };
  const metrics = options.metrics ?? new ServiceMetrics(database.poolSize);
  const authenticator = new Authenticator(database.db, options.apiKeys, (error: unknown) => {
    logger.warn({ err: summarizeError(error, { stack: false }) }, 'could not record API key use');
  });
  const failureLimit = options.authFailureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT;
  const redis =
    options.redisUrl && (options.rateLimit !== 'off' || failureLimit !== 'off')
      ? connectRedis(options.redisUrl, logger)
      : undefined;
  const rateLimiter =
    options.rateLimit === 'off'
      ? undefined
      : createRateLimiter({ policy: options.rateLimit, keyPrefix: 'petstore:ratelimit', redis });
  const authFailures =
    failureLimit === 'off'
      ? undefined
      : createFailureBudget(
          createRateLimiter({ policy: failureLimit, keyPrefix: 'petstore:authfail', redis }),
        );
  const streams = new EventStreams({
    database,
    logger,
    perKeyLimit: options.eventStreamsPerKey ?? DEFAULT_STREAMS_PER_KEY,
    maxQueued: options.eventStreamBuffer ?? DEFAULT_STREAM_BUFFER,
    maxLagMs: (options.eventStreamMaxLagSeconds ?? DEFAULT_STREAM_MAX_LAG_SECONDS) * 1000,
    ticketTtlSeconds: options.eventTicketTtlSeconds,
    metrics,
  });
  const notifier = createChangeNotifier(database, logger);
  const handler = createRequestHandler({
    router: api.router,
    streams,
    notifier,
    operations: api.operations,
    database,
    prepared: options.prepared ?? (() => true),
    authenticator,
    rateLimiter,
    authFailures,
    logger,
    metrics,
    openApiDocument: buildOpenApiDocument(api.router, api.operations, {
      productionUrl: options.publicBaseUrl,
      stagingUrl: options.stagingBaseUrl,
    }),
    trustProxy: options.trustProxy,
    corsOrigins: options.corsOrigins ?? [],
    fallbackOrigin: new URL(options.publicBaseUrl).origin,
    cursorSecret: options.cursorSecret,
    trpcFastPath: useTrpcFastPath(options.trpcFastPath ?? true, logger),
    maxBatchCalls: options.maxBatchCalls ?? DEFAULT_MAX_BATCH_CALLS,
  });
  const purge = startIdempotencyPurge(
    database.db,
    (error: unknown) => {
      logger.warn(
        { err: summarizeError(error, { stack: false }) },
        'could not purge expired idempotency keys',
      );
    },
    vacuumAfterPurgeBatch(database, idempotencyKeys),
  );
  const ticketPurge = streams.tickets.startPurge(
    (error: unknown) => {
      logger.warn(
        { err: summarizeError(error, { stack: false }) },
        'could not purge expired stream tickets',
      );
    },
    vacuumAfterPurgeBatch(database, streamTickets),
  );
  const retention = startEventRetention(
    database.db,
    options.eventRetentionSeconds ?? DEFAULT_EVENT_RETENTION_SECONDS,
    (error: unknown) => {
      logger.warn(
        { err: summarizeError(error, { stack: false }) },
        'could not prune expired events',
      );
    },
    vacuumAfterPurgeBatch(database, events),
  );
  const maintenance = startEmbeddedMaintenance(
    database,
    logger,
    options.maintenanceIntervalSeconds ?? DEFAULT_MAINTENANCE_INTERVAL_SECONDS,
  );
  let closing = false;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const server = createServer({
    // Slow clients must not hold sockets: a whole request within 30 s, headers within 10 s.
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // node checks the timeouts every connectionsCheckingInterval (30 s by default): check
    // often enough that a lowered timeout is honoured near its value.
    connectionsCheckingInterval: Math.min(30_000, Math.ceil(timeouts.headersMs / 4)),
    maxHeaderSize: 16 * 1024,
  });
  const inFlight = trackInFlight(server);
  server.on('request', (req, res) => {
    // While closing, each answer ends its connection: a keep-alive client must not hold
    // shutdown open until its socket idles out.
    if (closing) {
      res.setHeader('connection', 'close');
      endConnectionAfter(res);
    }
    inFlight.enter(req, res);
    handler(req, res);
  });

  return {
    server,
    authenticator,
    rateLimiter,
    metrics,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    close: async (graceMs = 10_000) => {
      closing = true;
      // Streams never finish by themselves: they end now, so their connections can close.
      await streams.close();
      await new Promise<void>((resolve) => {
        for (const res of inFlight.unsent()) res.setHeader('connection', 'close');
        // Streams sent their headers long ago, keep-alive: the connection ends with them.
        for (const res of inFlight.all()) endConnectionAfter(res);
        const force = setTimeout(() => {
          server.closeAllConnections();
        }, graceMs);
        purge.stop();
        ticketPurge.stop();
        retention.stop();
        maintenance.stop();
        notifier.stop();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      await redis?.close();
    },
  };
}
