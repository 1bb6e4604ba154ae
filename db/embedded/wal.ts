import { sql } from 'drizzle-orm';
import { executeRows, type Database } from '../database.js';

/**
 * PGlite runs PostgreSQL in single-user mode, where nothing starts a checkpoint when
 * max_wal_size of WAL has been written (only a server's checkpointer does): the WAL grew to
 * 529 MiB during a purge at 1M pets, and every new segment was written out in full rather than
 * recycled. So the service checkpoints itself once half of max_wal_size was written since the
 * last checkpoint, as a server would, and the log is held near its limit.
 */
const walSinceCheckpoint = sql`
  select (pg_current_wal_insert_lsn() - (pg_control_checkpoint()).redo_lsn)::bigint as written,
    pg_size_bytes(current_setting('max_wal_size')) as limit`;

/** Checkpoints when the WAL since the last checkpoint reached half of max_wal_size. */
export async function checkpointIfWalFull(db: Database): Promise<{ walBytes: number } | undefined> {
  const [row] = await executeRows<{ written: number | string; limit: number | string }>(
    db,
    walSinceCheckpoint,
  );
  const written = Number(row?.written ?? 0);
  if (written < Number(row?.limit ?? Infinity) / 2) return undefined;
  await db.execute(sql`checkpoint`);
  return { walBytes: written };
}
