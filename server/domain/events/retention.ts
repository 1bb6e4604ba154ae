import type { Database } from '../../../db/database.js';
import { pruneEvents } from '../../../db/queries/events.js';
import {
  deleteInBatches,
  PURGE_SCHEDULE,
  runPeriodically,
  type PurgeResult,
} from '../../support/periodic.js';

const PRUNE_BATCH_SIZE = 1_000;

/** Deletes events past the retention, oldest first, and records the last id deleted. */
export function pruneExpiredEvents(
  db: Database,
  retentionSeconds: number,
  batchSize = PRUNE_BATCH_SIZE,
): Promise<PurgeResult> {
  return deleteInBatches((size) => pruneEvents(db, retentionSeconds, size), batchSize);
}

export function startEventRetention(
  db: Database,
  retentionSeconds: number,
  onError: (error: unknown) => void,
): { stop(): void } {
  return runPeriodically(() => pruneExpiredEvents(db, retentionSeconds), PURGE_SCHEDULE, onError);
}
