import type { DatabaseHandle } from '../../db/client.js';
import { events, idempotencyKeys, streamTickets } from '../../db/schema.js';
import { startEventRetention } from '../domain/events/retention.js';
import type { StreamTickets } from '../domain/events/tickets.js';
import { startIdempotencyPurge } from '../domain/idempotency/purge.js';
import { startDeliveryWorker } from '../domain/webhooks/delivery-worker.js';
import { DEFAULT_RETRY_DELAYS } from '../domain/webhooks/schedule.js';
import type { ServiceMetrics } from '../support/service-metrics.js';
import { summarizeError } from '../support/error-summary.js';
import type { Logger } from '../support/logger.js';
import { startEmbeddedMaintenance, vacuumAfterPurgeBatch } from './maintenance.js';

const DEFAULT_EVENT_RETENTION_SECONDS = 7 * 86_400;
const DEFAULT_MAINTENANCE_INTERVAL_SECONDS = 60;

export interface BackgroundJobOptions {
  database: DatabaseHandle;
  logger: Logger;
  tickets: StreamTickets;
  /** How long events are kept (EVENTS_RETENTION, default 7 days), in seconds. */
  eventRetentionSeconds?: number | undefined;
  /** Seconds between the embedded database's maintenance rounds (PGLITE_MAINTENANCE_INTERVAL). */
  maintenanceIntervalSeconds?: number | undefined;
  metrics: ServiceMetrics;
  /** False until the start-up work ran on the database; webhook delivery waits for it. */
  prepared?: (() => boolean) | undefined;
  /** How webhooks are delivered; production's settings where absent. */
  webhookDelivery?: Partial<WebhookDeliverySettings> | undefined;
}

export interface WebhookDeliverySettings {
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** WEBHOOK_RETRY_DELAYS, in seconds */
  retryDelays: readonly number[];
  /** WEBHOOK_TIMEOUT, in milliseconds */
  timeoutMs: number;
  pollMs: number;
  maxInFlight: number;
}

const DEFAULT_WEBHOOK_DELIVERY: WebhookDeliverySettings = {
  allowPrivate: false,
  retryDelays: DEFAULT_RETRY_DELAYS,
  timeoutMs: 15_000,
  pollMs: 100,
  // 10 for each of 200 endpoints: the per-endpoint bound, not this one, is what keeps dead
  // endpoints from starving a healthy one, as long as fewer than 200 hang at once.
  maxInFlight: 2_000,
};

/**
 * The app's work off the request path: the purges of expired idempotency keys and stream
 * tickets, event retention, the embedded database's maintenance and webhook delivery. A round
 * that fails is logged; the next one tries again.
 */
export function startBackgroundJobs(options: BackgroundJobOptions): {
  /** A change committed in this process: work that follows changes looks at once. */
  changed: () => void;
  stop(): Promise<void>;
} {
  const { database, logger } = options;
  const warn = (message: string) => (error: unknown) => {
    logger.warn({ err: summarizeError(error, { stack: false }) }, message);
  };
  const maintenance = startEmbeddedMaintenance(
    database,
    logger,
    options.maintenanceIntervalSeconds ?? DEFAULT_MAINTENANCE_INTERVAL_SECONDS,
  );
  const jobs = [
    startIdempotencyPurge(
      database.db,
      warn('could not purge expired idempotency keys'),
      vacuumAfterPurgeBatch(database, idempotencyKeys),
    ),
    options.tickets.startPurge(
      warn('could not purge expired stream tickets'),
      vacuumAfterPurgeBatch(database, streamTickets),
    ),
    startEventRetention(
      database.db,
      options.eventRetentionSeconds ?? DEFAULT_EVENT_RETENTION_SECONDS,
      warn('could not prune expired events'),
      vacuumAfterPurgeBatch(database, events),
    ),
    maintenance,
  ];
  const webhooks = startDeliveryWorker({
    db: database.db,
    logger,
    metrics: options.metrics,
    ...DEFAULT_WEBHOOK_DELIVERY,
    ...options.webhookDelivery,
    prepared: options.prepared ?? (() => true),
  });
  return {
    changed: () => {
      maintenance.changed();
      webhooks.changed();
    },
    stop: async () => {
      for (const job of jobs) job.stop();
      await webhooks.stop();
    },
  };
}
