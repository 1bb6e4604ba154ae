import { AsyncLocalStorage } from 'node:async_hooks';

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

/** Told when a budget's database work starts and when all of it has settled (metrics). */
export interface WorkTracker {
  enter(): void;
  leave(): void;
}

/** The budget the database work being run belongs to: the runner reads it (db/runner.ts). */
const current = new AsyncLocalStorage<DatabaseBudget>();

/**
 * The budget of the work being run, while that work is pending: a callback that work left
 * behind (a listener, a timer) runs in its context later, but belongs to no request then.
 */
export function currentBudget(): DatabaseBudget | undefined {
  const budget = current.getStore();
  return budget?.waiting === true ? budget : undefined;
}

/** Runs `work` as nobody's: a batch shared by several requests must not end with the first. */
export function outsideBudgets<T>(work: () => T): T {
  return current.exit(work);
}

/**
 * One request's time on the database: every piece of database work the request does (the key
 * lookup, then the operation) draws on the same budget, and only while that work is pending.
 * Time spent reading a slow client's body is the client's, not the database's, so it is never
 * charged. Concurrent work (the calls of one tRPC batch) is charged once for the time it overlaps.
 *
 * The budget is the database's deadline too: once it is spent, `signal` aborts, and the runner
 * cancels the statements of the work and refuses its next ones (docs/reliability.md).
 */
export class DatabaseBudget {
  private spentMs = 0;
  private pending = 0;
  private since = 0;
  private controller: AbortController | undefined;
  private exhausted = false;

  constructor(
    readonly limitMs = DATABASE_DEADLINE_MS,
    private readonly tracker?: WorkTracker,
  ) {}

  /** Aborts when the budget runs out. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.exhausted) this.controller.abort();
    }
    return this.controller.signal;
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
   * Runs `work`, whose statements then draw on this budget, and settles with it, or rejects
   * once the budget runs out, cancelling what it still runs on the database.
   */
  within<T>(work: () => Promise<T>): Promise<T> {
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
          this.exhausted = true;
          this.controller?.abort();
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
      // async: a work that throws at once rejects, and still settles the budget.
      const running = current.run(this, async () => work());
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
