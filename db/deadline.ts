/**
 * How long one request may wait on the database, in all, before it answers 503. Below the
 * contract's 5 s so the answer leaves in time; the driver's own timeouts cannot see a server
 * that hangs without closing its connections (a frozen host, a silent network), so this bound
 * is the one that holds.
 */
export const DATABASE_DEADLINE_MS = 4_000;

/**
 * How long the server may run one statement that no request waits for (purges, the event
 * feed, batches shared by several requests): work off the request path is bounded too.
 */
export const STATEMENT_TIMEOUT_MS = 5_000;

export class DatabaseDeadlineError extends Error {
  override name = 'DatabaseDeadlineError';
  readonly code = 'DATABASE_DEADLINE';
}

/**
 * Told when a budget's database work starts and when all of it has settled, with the time
 * (`performance.now()`) the budget read anyway (metrics).
 */
export interface WorkTracker {
  enter(at: number): void;
  leave(at: number): void;
}

/**
 * One request's time on the database: every piece of database work the request does (the key
 * lookup, then the operation) draws on the same budget, and only while that work is pending.
 * Time spent reading a slow client's body is the client's, not the database's, so it is never
 * charged. Concurrent work (the calls of one tRPC batch) is charged once for the time it overlaps.
 *
 * The budget is the database's deadline too: once it is spent, the runner bound to it
 * (db/runner.ts, boundRunner) cancels the statements it runs and refuses its next ones
 * (docs/reliability.md). It is passed explicitly, not carried in an AsyncLocalStorage: on
 * Node 20 and 22 one `run` turns on promise hooks for the whole process, which put 2.9% of a
 * get's CPU in the hooks and doubled its garbage collection (docs/performance.md).
 */
export class DatabaseBudget {
  private spentMs = 0;
  private pending = 0;
  private since = 0;
  private cancels: Set<() => void> | undefined;
  private exhausted = false;

  constructor(
    readonly limitMs = DATABASE_DEADLINE_MS,
    private readonly tracker?: WorkTracker,
  ) {}

  /**
   * Calls `cancel` if the budget runs out before the returned function is called. A plain set,
   * not an AbortSignal: the runner registers a callback per statement and needs nothing more
   * of an EventTarget.
   */
  onSpent(cancel: () => void): () => void {
    if (this.exhausted) {
      cancel();
      return () => undefined;
    }
    const cancels = (this.cancels ??= new Set());
    cancels.add(cancel);
    return () => cancels.delete(cancel);
  }

  /** Whether work of this budget is still pending, given up on or not. */
  get waiting(): boolean {
    return this.pending > 0;
  }

  get spent(): boolean {
    return this.exhausted;
  }

  /** What is left of the budget now. */
  leftMs(): number {
    const running = this.pending > 0 ? performance.now() - this.since : 0;
    return Math.max(0, this.limitMs - this.spentMs - running);
  }

  /**
   * Runs `work` and settles with it, or rejects once the budget runs out, cancelling what the
   * runner bound to this budget still runs for it on the database.
   */
  within<T>(work: () => Promise<T>): Promise<T> {
    const now = performance.now();
    if (this.pending++ === 0) {
      this.since = now;
      this.tracker?.enter(now);
    }
    const leftMs = this.limitMs - this.spentMs - (now - this.since);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          reject(
            new DatabaseDeadlineError(`The database did not answer within ${this.limitMs} ms`),
          );
          this.exhausted = true;
          for (const cancel of this.cancels ?? []) cancel();
          this.cancels = undefined;
        },
        Math.max(0, leftMs),
      );
      const settle = () => {
        clearTimeout(timer);
        if (--this.pending === 0) {
          const settled = performance.now();
          this.spentMs += settled - this.since;
          this.tracker?.leave(settled);
        }
      };
      // A work that throws at once rejects, and still settles the budget.
      const running = (async () => work())();
      running.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the work's own reason, passed on unchanged
          reject(error);
        },
      );
    });
  }
}
