import { DatabaseDeadlineError, STATEMENT_TIMEOUT_MS, type DatabaseBudget } from './deadline.js';

/**
 * The longest a statement of a request waits for one lock before it lets go of its connection
 * and tries again. Behind a pooler in transaction mode a statement waiting on a row lock holds
 * one of the few server connections every instance shares: ten requests for one locked pet
 * held all five, and nothing else was served. Waiting in slices, off the connection between
 * them, leaves the pool to others; the budget still bounds the whole wait.
 */
export const LOCK_WAIT_SLICE_MS = 200;

const spentError = () =>
  new DatabaseDeadlineError('The request gave up on the database before this statement');

const refused = (): Promise<never> => Promise.reject(spentError());

/**
 * The budget a statement run for `budget` draws on: none once its work has settled, for a
 * callback the work left behind (a listener, a timer) belongs to no request then.
 */
const owner = (budget: DatabaseBudget | undefined) => (budget?.waiting ? budget : undefined);

/**
 * Runs `query` bounded by the budget of the work it belongs to: refused unsent once that budget
 * is spent, cancelled on the server (postgres.js sends a cancel request, which a pooler
 * forwards) the moment it runs out. A statement no request waits for (background work, a batch
 * several requests share) is cancelled after STATEMENT_TIMEOUT_MS.
 */
export function bounded<Q extends Promise<unknown> & { cancel(): unknown }>(
  of: DatabaseBudget | undefined,
  start: () => Q,
): Q | Promise<never> {
  if (of?.spent) return refused();
  const budget = owner(of);
  const query = start();
  const cancel = () => void query.cancel();
  if (budget === undefined) {
    const timer = setTimeout(cancel, STATEMENT_TIMEOUT_MS);
    const clear = () => {
      clearTimeout(timer);
    };
    query.then(clear, clear);
    return query;
  }
  const forget = budget.onSpent(cancel);
  query.then(forget, forget);
  return query;
}

/** Throws when the budget of the work is spent: nothing more of it goes to the server. */
export function assertBudgetLeft(budget: DatabaseBudget | undefined): void {
  if (budget?.spent) throw spentError();
}

/**
 * A transaction's BEGIN, with the server's own bounds on each of its statements: what is left
 * of the request's budget, so the server gives up no later than the client was told, and a
 * lock wait of at most LOCK_WAIT_SLICE_MS. Set per transaction, not per connection: a pooler
 * in transaction mode refuses it as a startup parameter and would carry a session setting to
 * whoever borrows the connection next. One simple-protocol message, so it costs no round trip.
 */
export function beginFor(of: DatabaseBudget | undefined): string {
  const budget = owner(of);
  const statementMs =
    budget === undefined ? STATEMENT_TIMEOUT_MS : Math.max(1, Math.ceil(budget.leftMs()));
  const lockMs = budget === undefined ? statementMs : Math.min(statementMs, LOCK_WAIT_SLICE_MS);
  return `begin; set local statement_timeout = ${statementMs}; set local lock_timeout = ${lockMs}`;
}

/** SQLSTATE 55P03: lock_timeout ended the wait for a lock. */
const isLockTimeout = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === '55P03';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` (a whole transaction) again after a jittered pause each time a lock wait
 * ran out of its slice, for as long as the request's budget lasts.
 */
export async function retryingLockWaits<T>(
  of: DatabaseBudget | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  const budget = owner(of);
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (budget === undefined || !isLockTimeout(error)) throw error;
      await pause(LOCK_WAIT_SLICE_MS * (0.5 + Math.random()));
      if (budget.spent) throw error;
    }
  }
}
