import type { DatabaseHandle } from '../../../db/client.js';
import { notifyEventFeeds } from '../../../db/queries/events.js';
import type { Logger } from '../../support/logger.js';
import { summarizeError } from '../../support/error-summary.js';

/** Changes committed within this window share one notification. */
const COALESCE_MS = 5;

/**
 * Wakes every process's event feed after a change commits. The NOTIFY is sent after the
 * commit, in a statement of its own, and at most once per few milliseconds per process: a
 * NOTIFY inside the changing transaction would hold PostgreSQL's notification lock through that
 * transaction's commit, and make every change wait for the one before it to reach the disk. A
 * notification lost in a crash between the two only delays events until the next change wakes
 * the feeds, since they read the log itself. The statement is built once and run by the
 * runner (named where the connection is direct), as every statement a request runs is: built
 * by drizzle on each call, it cost about 28 µs a request of a busy update (docs/performance.md).
 */
export function createChangeNotifier(
  database: DatabaseHandle,
  logger: Logger,
  /** Told of each change at once, in this process (webhook delivery looks for work). */
  onChange: () => void = () => undefined,
) {
  let scheduled: NodeJS.Timeout | undefined;
  let warned = false;
  const send = () => {
    scheduled = undefined;
    // Every process's feeds wait for it, not the request whose change scheduled it.
    notifyEventFeeds(database.db).then(
      () => {
        warned = false;
      },
      (error: unknown) => {
        if (warned) return;
        warned = true;
        logger.warn(
          { err: summarizeError(error, { stack: false }) },
          'could not notify event streams of a change',
        );
      },
    );
  };
  return {
    /** A change with events committed. */
    changed: (): void => {
      onChange();
      scheduled ??= setTimeout(send, COALESCE_MS);
    },
    stop: (): void => {
      clearTimeout(scheduled);
    },
  };
}

export type ChangeNotifier = ReturnType<typeof createChangeNotifier>;
