import type { Database } from '../../db/database.js';
import { deleteExpiredIdempotencyKeys } from '../../db/queries/idempotency-keys.js';
import { IDEMPOTENCY_TTL_SECONDS } from './replay.js';

const PURGE_INTERVAL_MS = 10 * 60_000;
const PURGE_BATCH_SIZE = 1_000;

/**
 * Deletes expired keys in small batches, each its own short statement, so the purge never
 * holds many locks at once. Lookups already ignore expired rows, so lateness here only costs
 * disk space. Returns how many rows went.
 */
export async function purgeExpiredIdempotencyKeys(
  db: Database,
  batchSize = PURGE_BATCH_SIZE,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteExpiredIdempotencyKeys(db, IDEMPOTENCY_TTL_SECONDS, batchSize);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/** Runs the purge on a timer, off the request path; the timer never keeps the process alive. */
export function startIdempotencyPurge(
  db: Database,
  onError: (error: unknown) => void,
): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    purgeExpiredIdempotencyKeys(db)
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
    },
  };
}
