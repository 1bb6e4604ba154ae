import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, collectDefaultMetrics, type Registry } from 'prom-client';
import { summarizeError } from '../support/error-summary.js';
import type { Logger } from '../support/logger.js';
import { ListenError } from '../support/errors.js';

/** What one scrape answers: the text and its content type. */
type Scrape = () => Promise<{ contentType: string; body: string }>;

export interface MetricsServer {
  address: AddressInfo;
  close(): Promise<void>;
}

/**
 * `GET /metrics` on a listener of its own (METRICS_PORT), never on the public port: metrics name
 * keys' activity and the service's internals, for the operator's network only.
 */
function listen(
  scrape: Scrape,
  port: number,
  host: string,
  logger: Logger,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('Only GET /metrics is served here\n');
      return;
    }
    scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType }).end(body);
      },
      (error: unknown) => {
        logger.warn({ err: summarizeError(error, { stack: false }) }, 'could not gather metrics');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Could not gather metrics\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => {
      reject(new ListenError('metrics', `${host}:${port}`, { cause: error }));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      const address = server.address() as AddressInfo;
      logger.info({ address: `http://${address.address}:${address.port}/metrics` }, 'metrics');
      resolve({
        address,
        close: () =>
          new Promise((done) => {
            server.close(() => {
              done();
            });
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * prom-client's gauges whose names end in `_total`, which Prometheus reserves for counters
 * (`promtool check metrics` refuses them): each is the sum of the gauge of the same name
 * without the suffix, by `type`, which stays.
 */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Node's process and GC metrics (prom-client's defaults), but for those three. */
function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(name);
}

/** One process serving alone: its own registry, with Node's process and GC metrics added. */
export function serveProcessMetrics(
  registry: Registry,
  port: number,
  host: string,
  logger: Logger,
): Promise<MetricsServer> {
  collectProcessMetrics(registry);
  return listen(
    async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    port,
    host,
    logger,
  );
}

/**
 * A worker of several (WORKERS > 1): it serves no listener, but answers the primary's requests
 * for its metrics (prom-client's cluster messages), so that one scrape shows every worker.
 */
export function shareWorkerMetrics(registry: Registry): void {
  collectProcessMetrics(registry);
  AggregatorRegistry.setRegistries(registry);
  // Constructing one installs the worker's listener for the primary's requests.
  new AggregatorRegistry();
}

/**
 * The primary of several workers: each scrape asks every worker for its metrics and answers
 * their sum (histograms and counters add up; see docs/operations.md for the rest).
 */
export function serveClusterMetrics(
  port: number,
  host: string,
  logger: Logger,
): Promise<MetricsServer> {
  const aggregator = new AggregatorRegistry();
  return listen(
    async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() }),
    port,
    host,
    logger,
  );
}
