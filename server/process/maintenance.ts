import { getTableName, type Table } from 'drizzle-orm';
import type { DatabaseHandle } from '../../db/client.js';
import { maintainTables, runMaintenanceStep } from '../../db/embedded/maintenance.js';
import { summarizeError } from '../support/error-summary.js';
import type { Logger } from '../support/logger.js';
import { runPeriodically, type AfterBatch } from '../support/periodic.js';

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
      const steps = await maintainTables(database.db, 'round');
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

/**
 * What a purge of `table` runs after each batch: on PGlite, a vacuum of that table. Each one
 * finds about a batch of dead rows on the pages the batch emptied, which the visibility map
 * lets it read alone, rather than leaving every row the purge deleted to one vacuum that reads
 * them all, indexes included, while PGlite serves nothing else. PostgreSQL has autovacuum.
 */
export function vacuumAfterPurgeBatch(
  database: DatabaseHandle,
  table: Table,
): AfterBatch | undefined {
  if (database.kind !== 'pglite') return undefined;
  const step = { table: getTableName(table), action: 'vacuum' } as const;
  return () => runMaintenanceStep(database.db, step);
}
