import type { Database } from '../../../db/database.js';
import { pruneEvents } from '../../../db/queries/events.js';
import {
  deleteInBatches,
  type AfterBatch,
  PURGE_SCHEDULE,
  runPeriodically,
  type PurgeResult,
} from '../../support/periodic.js';

export const PRUNE_BATCH_SIZE = 1_000;

/** Deletes events past the retention, oldest first, and records the last id deleted. */
export function pruneExpiredEvents(
  db: Database,
  retentionSeconds: number,
  batchSize = PRUNE_BATCH_SIZE,
  afterBatch?: AfterBatch,
): Promise<PurgeResult> {
  return deleteInBatches((size) => pruneEvents(db, retentionSeconds, size), batchSize, afterBatch);
}

export function startEventRetention(
  db: Database,
  retentionSeconds: number,
  onError: (error: unknown) => void,
  afterBatch?: AfterBatch,
): { stop(): void } {
  return runPeriodically(
    () => pruneExpiredEvents(db, retentionSeconds, PRUNE_BATCH_SIZE, afterBatch),
    PURGE_SCHEDULE,
    onError,
  );
}
