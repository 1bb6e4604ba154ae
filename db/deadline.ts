/**
 * How long one request may wait on the database, in all, before it answers 503. Below the
 * contract's 5 s so the answer leaves in time; the driver's own timeouts cannot see a server
 * that hangs without closing its connections (a frozen host, a silent network), so this bound
 * is the one that holds.
 */
export const DATABASE_DEADLINE_MS = 4_000;

/**
 * How long the server may run one statement of a transaction before it cancels it: past the
 * request's deadline, so a statement the request gave up on does not hold its locks for long.
 */
export const STATEMENT_TIMEOUT_MS = 5_000;

export class DatabaseDeadlineError extends Error {
  override name = 'DatabaseDeadlineError';
  readonly code = 'DATABASE_DEADLINE';
}

/** Told when a budget's database work starts and when all of it has settled (metrics). */
export interface WorkTracker {
  enter(): void;
  leave(): void;
}

/**
 * One request's time on the database: every piece of database work the request does (the key
 * lookup, then the operation) draws on the same budget, and only while that work is pending.
 * Time spent reading a slow client's body is the client's, not the database's, so it is never
 * charged. Concurrent work (the calls of one tRPC batch) is charged once for the time it overlaps.
 */
export class DatabaseBudget {
  private spentMs = 0;
  private pending = 0;
  private since = 0;

  constructor(
    readonly limitMs = DATABASE_DEADLINE_MS,
    private readonly tracker?: WorkTracker,
  ) {}

  /**
   * Settles with `work`, or rejects once the budget runs out. The query itself is not cancelled
   * (the server may not be listening): it finishes or fails in the background, so a 503 does not
   * prove that nothing was written.
   */
  within<T>(work: Promise<T>): Promise<T> {
    const now = performance.now();
    if (this.pending++ === 0) {
      this.since = now;
      this.tracker?.enter();
    }
    const leftMs = this.limitMs - this.spentMs - (now - this.since);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          reject(
            new DatabaseDeadlineError(`The database did not answer within ${this.limitMs} ms`),
          );
        },
        Math.max(0, leftMs),
      );
      const settle = () => {
        clearTimeout(timer);
        if (--this.pending === 0) {
          this.spentMs += performance.now() - this.since;
          this.tracker?.leave();
        }
      };
      work.then(
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
