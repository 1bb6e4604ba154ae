/** When a batch that may go at once goes: what may still join it before then. */
export type BatchStart = (write: () => void) => void;

/**
 * A DataLoader `batchScheduleFn` that lets a batch be written once fewer than `size` are being
 * written; the rest queue in order. While batches are in flight, new loads gather into the next
 * one instead of each paying a statement of its own.
 */
export class BatchTurns {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  /**
   * `start` defaults to a microtask: only the loads of the callback that made the batch join.
   * `setImmediate` lets every request that arrived in the same turn of the event loop join,
   * for loads that arrive in bursts of separate requests.
   */
  constructor(
    size: number,
    private readonly start: BatchStart = queueMicrotask,
  ) {
    this.free = size;
  }

  readonly acquire = (write: () => void): void => {
    if (this.free > 0) {
      this.free--;
      this.start(write);
    } else this.waiting.push(write);
  };

  readonly release = (): void => {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  };
}
