import type { DatabaseHandle } from '../../db/client.js';
import { maintainTables } from '../../db/embedded/maintenance.js';
import { summarizeError } from '../support/error-summary.js';
import type { Logger } from '../support/logger.js';
import { runPeriodically } from '../support/periodic.js';

/**
 * Keeps the embedded database's statistics and free space as autovacuum would. PostgreSQL has
 * autovacuum for that, so there it does nothing.
 */
export function startEmbeddedMaintenance(
  database: DatabaseHandle,
  logger: Logger,
  everySeconds: number,
): { stop(): void } {
  if (database.kind !== 'pglite') return { stop: () => undefined };
  const everyMs = everySeconds * 1000;
  return runPeriodically(
    async () => {
      const steps = await maintainTables(database.db);
      if (steps.length > 0) logger.info({ steps }, 'embedded database maintained');
    },
    { firstAfterMs: everyMs, everyMs },
    (error: unknown) => {
      logger.warn(
        { err: summarizeError(error, { stack: false }) },
        'could not maintain the embedded database',
      );
    },
  );
}
