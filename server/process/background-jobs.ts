import type { DatabaseHandle } from '../../db/client.js';
import { events, idempotencyKeys, streamTickets } from '../../db/schema.js';
import { startEventRetention } from '../domain/events/retention.js';
import type { StreamTickets } from '../domain/events/tickets.js';
import { startIdempotencyPurge } from '../domain/idempotency/purge.js';
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
}

/**
 * The app's work off the request path: the purges of expired idempotency keys and stream
 * tickets, event retention and the embedded database's maintenance. A round that fails is
 * logged; the next one tries again.
 */
export function startBackgroundJobs(options: BackgroundJobOptions): {
  /** A change committed in this process: work that follows changes looks at once. */
  changed: () => void;
  stop(): void;
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
  return {
    changed: () => {
      maintenance.changed();
    },
    stop: () => {
      for (const job of jobs) job.stop();
    },
  };
}
