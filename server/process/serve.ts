import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import type { DatabaseHandle } from '../../db/client.js';
import { maintainTables } from '../../db/embedded/maintenance.js';
import { claimKeysSocket } from '../surfaces/admin/keys-socket.js';
import { adminSocketPath } from '../surfaces/admin/protocol.js';
import { openConfiguredDatabase } from './database.js';
import { createApp } from './app.js';
import { ensureApiKey } from '../domain/auth/bootstrap.js';
import type { Config } from './config.js';
import { handOverFirstKey } from './first-key.js';
import type { Logger } from '../support/logger.js';
import { serveProcessMetrics, shareWorkerMetrics } from './metrics-server.js';
import { prepare } from './preparation.js';
import { onShutdownSignal } from './shutdown.js';
import { exitOnStartFailure } from './start-failure.js';

/**
 * Migrations and the first key, before the database serves a request. While PostgreSQL is
 * unreachable nobody can tell whether a key exists: the service starts, serves nothing that
 * needs the database, and checks once it answers; with no key it then exits 78, as it would
 * have at start.
 */
async function prepareDatabase(
  database: DatabaseHandle,
  config: Config,
  logger: Logger,
): Promise<void> {
  if (database.kind === 'pglite' && !config.PGLITE_DIR.includes('://')) {
    // PGlite runs PostgreSQL with fsync off and its Node file system cannot fsync: a commit is in
    // the kernel's page cache when acknowledged, so it survives the process dying, not the machine.
    logger.warn(
      { dataDir: config.PGLITE_DIR },
      'embedded database: acknowledged writes survive a crash of this process but not an OS crash or power loss; set DATABASE_URL to use PostgreSQL where they must',
    );
  }
  if (config.MIGRATE_ON_START) await database.migrate();
  if (database.kind === 'pglite') {
    // Before the first request: a folder filled while the service was stopped has no
    // statistics, and every list would scan it until the background maintenance came round.
    const steps = await maintainTables(database.db, 'start');
    if (steps.length > 0) logger.info({ steps }, 'embedded database statistics refreshed');
  }
  const issued = await ensureApiKey(database, config.API_KEYS);
  if (issued) handOverFirstKey(issued, config, logger);
}

/**
 * One serving process. On SIGTERM/SIGINT it stops accepting, lets in-flight requests finish
 * (up to SHUTDOWN_TIMEOUT), then closes the database: PGlite must shut down cleanly to keep
 * its data folder consistent.
 */
export async function serve(config: Config, logger: Logger): Promise<void> {
  const keysSocket = await embeddedKeysSocket(config, logger);
  const database = await openConfiguredDatabase(config, config.DATABASE_POOL_MAX, logger);
  const preparation = await prepare(
    () => prepareDatabase(database, config, logger),
    logger,
    exitOnStartFailure,
  );
  keysSocket?.serve(database);

  const app = createApp({
    database,
    prepared: preparation.done,
    logger,
    apiKeys: config.API_KEYS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    stagingBaseUrl: config.STAGING_BASE_URL,
    trustProxy: config.TRUST_PROXY,
    rateLimit: config.RATE_LIMIT,
    authFailureLimit: config.AUTH_FAILURE_LIMIT,
    redisUrl: config.REDIS_URL,
    cursorSecret: config.CURSOR_SECRET,
    corsOrigins: config.CORS_ORIGINS,
    maxBatchCalls: config.TRPC_MAX_BATCH,
    eventStreamsPerKey: config.EVENT_STREAMS_PER_KEY,
    eventRetentionSeconds: config.EVENTS_RETENTION,
    eventStreamMaxLagSeconds: config.EVENT_STREAM_MAX_LAG,
    eventTicketTtlSeconds: config.EVENT_TICKET_TTL,
    maintenanceIntervalSeconds: config.PGLITE_MAINTENANCE_INTERVAL,
    webhooks: {
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      retryDelays: config.WEBHOOK_RETRY_DELAYS,
      timeoutMs: config.WEBHOOK_TIMEOUT * 1000,
    },
  });
  const address = await app.listen(config.PORT, config.HOST);
  logger.info(
    { address: `http://${address.address}:${address.port}`, database: database.kind },
    'listening',
  );
  const metrics = await serveMetrics(config, app.metrics.registry, logger);

  const graceMs = config.SHUTDOWN_TIMEOUT * 1000;
  onShutdownSignal(logger, graceMs, async () => {
    preparation.stop();
    await metrics?.close();
    await keysSocket?.close();
    await app.close(graceMs);
    await database.close();
  });
}

/** METRICS_PORT: this process's own listener, or, as one of several workers, the primary's. */
async function serveMetrics(config: Config, registry: Registry, logger: Logger) {
  if (config.METRICS_PORT === undefined) return undefined;
  if (!cluster.isWorker) {
    return serveProcessMetrics(registry, config.METRICS_PORT, config.METRICS_HOST, logger);
  }
  shareWorkerMetrics(registry);
  return undefined;
}

/**
 * On the embedded database only one process may open the data folder, so `npm run keys` runs
 * its commands in the service, over a socket in that folder (docs/api-keys.md). PostgreSQL
 * needs none: the command line connects to it beside running servers.
 */
async function embeddedKeysSocket(config: Config, logger: Logger) {
  if (config.DATABASE_URL) return undefined;
  const path = adminSocketPath(config.PGLITE_DIR);
  if (path) return claimKeysSocket(path, logger);
  if (!config.PGLITE_DIR.includes('://')) {
    logger.warn(
      { dataDir: config.PGLITE_DIR },
      'PGLITE_DIR is too long a path for the admin socket: stop the service before running npm run keys',
    );
  }
  return undefined;
}
