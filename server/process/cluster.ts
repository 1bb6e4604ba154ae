import cluster, { type Worker } from 'node:cluster';
import { ConfigError } from '../support/errors.js';
import type { Config } from './config.js';
import type { Logger } from '../support/logger.js';
import { serveClusterMetrics } from './metrics-server.js';
import { EX_CONFIG } from './start-failure.js';

/** A worker that dies this soon after starting is failing to start: wait before replacing it. */
const QUICK_DEATH_MS = 5_000;
const RESTART_DELAY_MS = 1_000;
/** Beyond the workers' own grace period, before the primary stops waiting for them. */
const STOP_ALLOWANCE_MS = 15_000;

/**
 * The primary of WORKERS processes sharing one port (node:cluster hands connections out in
 * turn). It forks, replaces a worker that dies, and on SIGTERM/SIGINT passes the signal on and
 * exits when every worker has stopped. It never touches the database: each worker prepares it
 * (migrations take turns under a lock, the second finds nothing to do), so the primary starts
 * while the database is unreachable, as the workers do.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  if (!config.DATABASE_URL) {
    throw new ConfigError(
      `WORKERS=${config.WORKERS} needs DATABASE_URL: the embedded database (PGlite) can be ` +
        'opened by one process only. Set DATABASE_URL to a PostgreSQL server, or WORKERS=1.',
    );
  }
  // One scrape of the primary shows every worker (prom-client's cluster aggregation).
  if (config.METRICS_PORT !== undefined) {
    await serveClusterMetrics(config.METRICS_PORT, config.METRICS_HOST, logger);
  }

  const startedAt = new Map<Worker, number>();
  let stopping = false;
  let exitCode = 0;

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    logger.info({ workerPid: worker.process.pid }, 'worker started');
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      if (code !== 0 && exitCode === 0) exitCode = 1;
      if (startedAt.size === 0) process.exit(exitCode);
      return;
    }
    if (code === EX_CONFIG) {
      // Its message is on stderr already; every worker would fail the same way.
      exitCode = EX_CONFIG;
      stop('configuration');
      if (startedAt.size === 0) process.exit(exitCode);
      return;
    }
    logger.error({ workerPid: worker.process.pid, code, signal }, 'worker died; replacing it');
    setTimeout(fork, lived < QUICK_DEATH_MS ? RESTART_DELAY_MS : 0);
  });

  const stop = (reason: NodeJS.Signals | 'configuration') => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, workers: startedAt.size }, 'shutting down workers');
    for (const worker of startedAt.keys()) worker.process.kill('SIGTERM');
    setTimeout(
      () => {
        logger.error('workers did not stop in time; exiting');
        process.exit(1);
      },
      config.SHUTDOWN_TIMEOUT * 1000 + STOP_ALLOWANCE_MS,
    ).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let i = 0; i < config.WORKERS; i++) fork();
}
