import { setImmediate as nextTurn } from 'node:timers/promises';

export interface Schedule {
  /** The first run, soon after start: a service restarted more often than `everyMs` still runs it. */
  firstAfterMs: number;
  everyMs: number;
}

/** The background purges: a minute after start, then every ten minutes. */
export const PURGE_SCHEDULE: Schedule = { firstAfterMs: 60_000, everyMs: 10 * 60_000 };

/**
 * Runs `task` on `schedule`, off the request path, never two at once; the timers never keep
 * the process alive. For the background purges (expired idempotency keys, old events).
 */
export function runPeriodically(
  task: () => Promise<unknown>,
  schedule: Schedule,
  onError: (error: unknown) => void,
): { stop(): void } {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    task()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  };
  let timer: NodeJS.Timeout = setTimeout(() => {
    tick();
    timer = setInterval(tick, schedule.everyMs);
    timer.unref();
  }, schedule.firstAfterMs);
  timer.unref();
  return {
    stop: () => {
      clearTimeout(timer);
      clearInterval(timer);
    },
  };
}

export interface PurgeResult {
  deleted: number;
  /** Statements it took: each deleted at most one batch. */
  batches: number;
}

/** What a purge runs after each batch that deleted rows (on PGlite, the vacuum of the table). */
export type AfterBatch = () => Promise<unknown>;

/**
 * Calls `deleteBatch` until it deletes fewer than `batchSize` rows, and `afterBatch` after each
 * batch that deleted some: each batch its own short statement, so a purge never holds many
 * locks at once. Between statements the event loop gets a turn: PGlite runs a statement synchronously and resolves it without I/O, so a purge of many
 * batches otherwise ran start to end before a request that arrived meanwhile was even read.
 */
export async function deleteInBatches(
  deleteBatch: (batchSize: number) => Promise<number>,
  batchSize: number,
  afterBatch?: AfterBatch,
): Promise<PurgeResult> {
  const result = { deleted: 0, batches: 0 };
  for (;;) {
    const deleted = await deleteBatch(batchSize);
    result.deleted += deleted;
    result.batches += 1;
    if (deleted > 0 && afterBatch) {
      await nextTurn();
      await afterBatch();
    }
    if (deleted < batchSize) return result;
    await nextTurn();
  }
}
