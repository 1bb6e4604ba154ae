import type { Database } from '../../../db/database.js';
import { deleteExpiredIdempotencyKeys } from '../../../db/queries/idempotency-keys.js';
import {
  deleteInBatches,
  type AfterBatch,
  PURGE_SCHEDULE,
  runPeriodically,
  type PurgeResult,
} from '../../support/periodic.js';
import { IDEMPOTENCY_TTL_SECONDS } from './replay.js';

const PURGE_BATCH_SIZE = 1_000;

/**
 * Deletes expired keys in small batches. Lookups already ignore expired rows, so lateness
 * here only costs disk space.
 */
export function purgeExpiredIdempotencyKeys(
  db: Database,
  batchSize = PURGE_BATCH_SIZE,
  afterBatch?: AfterBatch,
): Promise<PurgeResult> {
  return deleteInBatches(
    (size) => deleteExpiredIdempotencyKeys(db, IDEMPOTENCY_TTL_SECONDS, size),
    batchSize,
    afterBatch,
  );
}

export function startIdempotencyPurge(
  db: Database,
  onError: (error: unknown) => void,
  afterBatch?: AfterBatch,
): { stop(): void } {
  return runPeriodically(
    () => purgeExpiredIdempotencyKeys(db, PURGE_BATCH_SIZE, afterBatch),
    PURGE_SCHEDULE,
    onError,
  );
}
