/**
 * Runs `task` every `intervalMs`, off the request path, never two at once; the timer never
 * keeps the process alive. For the background purges (expired idempotency keys, old events).
 */
export function runPeriodically(
  task: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
    },
  };
}

/**
 * Calls `deleteBatch` until it deletes fewer than `batchSize` rows: each batch its own short
 * statement, so a purge never holds many locks at once. Returns how many rows went in all.
 */
export async function deleteInBatches(
  deleteBatch: (batchSize: number) => Promise<number>,
  batchSize: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(batchSize);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
