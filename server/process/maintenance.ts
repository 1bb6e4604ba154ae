import { getTableName, type Table } from 'drizzle-orm';
import type { DatabaseHandle } from '../../db/client.js';
import { maintainTables, runMaintenanceStep } from '../../db/embedded/maintenance.js';
import { checkpointIfWalFull } from '../../db/embedded/wal.js';
import { summarizeError } from '../support/error-summary.js';
import type { Logger } from '../support/logger.js';
import { runPeriodically, type AfterBatch } from '../support/periodic.js';

/**
 * How often the WAL written since the last checkpoint is looked at when nothing says a change
 * committed (work that does not notify, such as webhook management).
 */
const WAL_CHECK_MS = 2_000;
/**
 * Commits between two looks at the WAL: a write load looks as often as it writes, so a burst
 * cannot outrun a timer. A change to a pet at 300k pets writes tens of KiB of WAL (whole pages
 * after a checkpoint), so the log passes its mark by a few MiB at most.
 */
const WAL_CHECK_COMMITS = 64;

/**
 * Keeps the embedded database's statistics and free space as autovacuum would, and its WAL
 * within max_wal_size as the checkpointer would (db/embedded/wal.ts). PostgreSQL has
 * autovacuum and a checkpointer for that, so there it does nothing.
 */
export function startEmbeddedMaintenance(
  database: DatabaseHandle,
  logger: Logger,
  everySeconds: number,
): { changed(): void; stop(): void } {
  if (database.kind !== 'pglite') return { changed: () => undefined, stop: () => undefined };
  const everyMs = everySeconds * 1000;
  const warn = (message: string) => (error: unknown) => {
    logger.warn({ err: summarizeError(error, { stack: false }) }, message);
  };
  const jobs = [
    runPeriodically(
      async () => {
        const steps = await maintainTables(database.db, 'round');
        if (steps.length > 0) logger.info({ steps }, 'embedded database maintained');
      },
      { firstAfterMs: everyMs, everyMs },
      warn('could not maintain the embedded database'),
    ),
  ];
  const wal = watchWal(database, logger, warn('could not checkpoint the embedded database'));
  return {
    changed: wal.changed,
    stop: () => {
      wal.stop();
      for (const job of jobs) job.stop();
    },
  };
}

/**
 * Looks at the WAL every WAL_CHECK_COMMITS commits of this process (`changed`), and every
 * WAL_CHECK_MS besides; one look at a time.
 */
function watchWal(database: DatabaseHandle, logger: Logger, onError: (error: unknown) => void) {
  let commits = 0;
  let looking = false;
  const look = () => {
    if (looking) return;
    looking = true;
    commits = 0;
    checkpointed(database, logger)
      .catch(onError)
      .finally(() => {
        looking = false;
      });
  };
  const timer = setInterval(look, WAL_CHECK_MS);
  timer.unref();
  return {
    changed: () => {
      if (++commits >= WAL_CHECK_COMMITS) look();
    },
    stop: () => {
      clearInterval(timer);
    },
  };
}

async function checkpointed(database: DatabaseHandle, logger: Logger): Promise<void> {
  const started = performance.now();
  const done = await checkpointIfWalFull(database.db);
  if (done) {
    const durationMs = Math.round(performance.now() - started);
    logger.info({ ...done, durationMs }, 'embedded database checkpointed');
  }
}

/**
 * What a purge of `table` runs after each batch: on PGlite, a vacuum of that table. Each one
 * finds about a batch of dead rows on the pages the batch emptied, which the visibility map
 * lets it read alone, rather than leaving every row the purge deleted to one vacuum that reads
 * them all, indexes included, while PGlite serves nothing else. A purge writes WAL faster than
 * anything else, so the WAL is looked at after each batch too. PostgreSQL has autovacuum.
 */
export function vacuumAfterPurgeBatch(
  database: DatabaseHandle,
  table: Table,
): AfterBatch | undefined {
  if (database.kind !== 'pglite') return undefined;
  const step = { table: getTableName(table), action: 'vacuum' } as const;
  return async () => {
    await runMaintenanceStep(database.db, step);
    await checkpointIfWalFull(database.db);
  };
}
