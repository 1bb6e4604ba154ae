import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyTRPCRouter } from '@trpc/server';
import { Authenticator } from '../domain/auth/authenticator.js';
import { createChangeNotifier } from '../domain/events/notifier.js';
import { EventStreams } from '../domain/events/streams.js';
import type { RateLimiter } from '../domain/rate-limit/limiter.js';
import type { AnyOperation } from '../operations/define.js';
import { operations } from '../operations/registry.js';
import { summarizeError } from '../support/error-summary.js';
import type { Logger } from '../support/logger.js';
import { registerReplicaMetrics } from './replica-metrics.js';
import { ServiceMetrics } from '../support/service-metrics.js';
import {
  fastPathVerified,
  installedTrpcVersion,
  TRPC_WIRE_VERSION,
} from '../surfaces/http/fast-path/wire.js';
import { createRequestHandler } from '../surfaces/http/handler.js';
import { buildOpenApiDocument } from '../surfaces/openapi/document.js';
import { appRouter } from '../surfaces/trpc/router.js';
import { startBackgroundJobs, type BackgroundJobOptions } from './background-jobs.js';
import { startWebhooks, type WebhooksOptions } from '../webhooks/module.js';
import { createHttpServer, type HttpTimeouts } from './http-server.js';
import { createRequestLimits, type RequestLimitOptions } from './request-limits.js';

/** The procedures an app serves: the service's own unless a test serves others. */
export interface Api {
  router: AnyTRPCRouter;
  /** Every procedure the router serves, subscriptions included, under its path. */
  operations: ReadonlyMap<string, AnyOperation>;
}

/** With the rate limits' options and the background jobs' (retention, maintenance). */
export interface AppOptions extends RequestLimitOptions, Omit<BackgroundJobOptions, 'tickets'> {
  api?: Api;
  /**
   * False while the start-up work (migrations, the key check) waits for the database: every
   * request that needs it is then 503, and so is `/readyz`. Tests' databases are ready.
   */
  prepared?: () => boolean;
  /** The app's metrics; its own when absent (served only where serve() opens METRICS_PORT). */
  metrics?: ServiceMetrics;
  apiKeys: readonly string[];
  publicBaseUrl: string;
  stagingBaseUrl?: string | undefined;
  trustProxy: boolean;
  /** Signs pagination cursors; see CURSOR_SECRET in the README. */
  cursorSecret?: string | undefined;
  corsOrigins?: readonly string[];
  /** Defaults suit production; tests lower them to prove slow clients are cut off. */
  timeouts?: Partial<HttpTimeouts>;
  /** Calls one tRPC batch may hold (TRPC_MAX_BATCH). */
  maxBatchCalls?: number;
  /** Event streams one key may hold open (EVENT_STREAMS_PER_KEY, default 20). */
  eventStreamsPerKey?: number;
  /** Events queued for one stream at most; past it, the stream reads the log at its own pace. */
  eventStreamBuffer?: number;
  /** How long a stream may stay behind after its queue overflowed (EVENT_STREAM_MAX_LAG). */
  eventStreamMaxLagSeconds?: number;
  /** How long a stream ticket stays valid (EVENT_TICKET_TTL, default 60 s). */
  eventTicketTtlSeconds?: number;
  /**
   * Plain tRPC calls skip tRPC's node adapter (default); false sends every `/trpc` call through
   * it, which the wire test compares against.
   */
  trpcFastPath?: boolean;
  /** The WEBHOOK_* settings and what tests tune; production's defaults where absent. */
  webhooks?: WebhooksOptions['settings'];
}

const DEFAULT_MAX_BATCH_CALLS = 20;
const DEFAULT_STREAMS_PER_KEY = 20;
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

export interface App {
  server: Server;
  authenticator: Authenticator;
  rateLimiter: RateLimiter | undefined;
  metrics: ServiceMetrics;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const { database, logger } = options;
  const api = options.api ?? { router: appRouter, operations };
  const metrics = options.metrics ?? new ServiceMetrics(database.poolSize);
  if (database.replicas) registerReplicaMetrics(metrics.registry, database.replicas);
  const authenticator = new Authenticator(database.db, options.apiKeys, (error: unknown) => {
    logger.warn({ err: summarizeError(error, { stack: false }) }, 'could not record API key use');
  });
  const limits = createRequestLimits(options);
  const streams = new EventStreams({
    database,
    logger,
    perKeyLimit: options.eventStreamsPerKey ?? DEFAULT_STREAMS_PER_KEY,
    maxQueued: options.eventStreamBuffer ?? DEFAULT_STREAM_BUFFER,
    maxLagMs: (options.eventStreamMaxLagSeconds ?? DEFAULT_STREAM_MAX_LAG_SECONDS) * 1000,
    ticketTtlSeconds: options.eventTicketTtlSeconds,
    metrics,
  });
  const jobs = startBackgroundJobs({
    ...options,
    tickets: streams.tickets,
  });
  const webhooks = startWebhooks({
    database,
    logger,
    metrics,
    settings: options.webhooks,
    prepared: options.prepared ?? (() => true),
  });
  const notifier = createChangeNotifier(database, logger, () => {
    jobs.changed();
    webhooks.changed();
  });
  const handler = createRequestHandler({
    router: api.router,
    streams,
    notifier,
    operations: api.operations,
    database,
    prepared: options.prepared ?? (() => true),
    authenticator,
    rateLimiter: limits.rateLimiter,
    authFailures: limits.authFailures,
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
    operationSettings: { webhooks: webhooks.settings },
  });
  const http = createHttpServer(handler, options.timeouts);

  return {
    server: http.server,
    authenticator,
    rateLimiter: limits.rateLimiter,
    metrics,
    listen: http.listen,
    close: async (graceMs = 10_000) => {
      http.stopKeepingAlive();
      // Streams never finish by themselves: they end now, so their connections can close.
      await streams.close();
      jobs.stop();
      await webhooks.stop();
      notifier.stop();
      await http.close(graceMs);
      await limits.close();
    },
  };
}
