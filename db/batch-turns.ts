import DataLoader from 'dataloader';

/** When a batch that may go at once goes: what may still join it before then. */
export type BatchStart = (write: () => void) => void;

/**
 * A DataLoader `batchScheduleFn` that lets a batch be written once fewer than `size` are being
 * written; the rest queue in order. While batches are in flight, new loads gather into the next
 * one instead of each paying a statement of its own.
 */
class BatchTurns {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(
    size: number,
    private readonly start: BatchStart,
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

export interface TurnsOptions {
  /** Batches run at once; the loads that arrive meanwhile wait and go together in the next. */
  inFlight: number;
  /**
   * When a batch that may go at once starts. A microtask (the default) takes only the loads of
   * the callback that made the batch; `setImmediate` takes every request that arrived in the
   * same turn of the event loop, for loads that come in bursts of separate requests (each
   * request's callback ends in a drain of the microtasks).
   */
  start?: BatchStart;
  maxBatchSize?: number;
}

/** A loader whose loads gather into batches, `inFlight` of them running at a time. */
export function loaderInTurns<K, V>(
  batch: DataLoader.BatchLoadFn<K, V>,
  options: TurnsOptions,
): DataLoader<K, V> {
  const turns = new BatchTurns(options.inFlight, options.start ?? queueMicrotask);
  return new DataLoader<K, V>(
    (keys) => {
      // A batch function that throws before its first await must still give its turn back.
      // The batch serves several requests: it runs on the database, no request's runner.
      const done = Promise.resolve().then(() => batch(keys));
      void done.then(turns.release, turns.release);
      return done;
    },
    {
      cache: false,
      batchScheduleFn: turns.acquire,
      ...(options.maxBatchSize === undefined ? {} : { maxBatchSize: options.maxBatchSize }),
    },
  );
}

/**
 * One batch at a time, started on setImmediate: for loads made by bursts of separate requests
 * (streams opened or closed together). On the embedded database a statement holds the event
 * loop while it runs, so a batch started in a microtask would hold one request's load alone.
 */
export function burstLoader<K, V>(batch: DataLoader.BatchLoadFn<K, V>): DataLoader<K, V> {
  return loaderInTurns(batch, { inFlight: 1, start: setImmediate });
}
