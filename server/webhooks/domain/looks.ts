/** The longest an idle worker waits between looks for work: other instances' commits wait this. */
const IDLE_POLL_MS = 1_000;

/** What one look for work found. */
export interface Look {
  worked: boolean;
  /** It took all it could: more may be waiting. */
  more: boolean;
  /** Some endpoint exists: without one, nothing looks until a wake. */
  endpoints: boolean;
  /** Work waits a moment: the next reading of the log's barrier, or the API's turn. */
  againInMs?: number;
}

/**
 * When the worker looks for work: one look at a time, at once on a wake (a wake during a look
 * looks again right after it), 'pollMs' after a look that found work, and each look that finds
 * none doubles the wait up to a second. Without any endpoint nothing is timed: the next look is
 * the next wake (a commit or an endpoint created in this process). An instance that holds
 * endpoints polls for every instance.
 */
export function scheduleLooks(
  round: () => Promise<Look>,
  options: { pollMs: number; failed: (error: unknown) => void },
): { wake: (afterMs: number) => void; stop: () => void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let looking = false;
  let lookAgain = false;
  let dueAt = Infinity;
  let idleMs = options.pollMs;

  /** Looks for work in `afterMs`, or sooner if a look is already due sooner. */
  function wake(afterMs: number) {
    if (stopped) return;
    if (looking) {
      lookAgain ||= afterMs === 0;
      return;
    }
    const at = Date.now() + afterMs;
    if (timer !== undefined && at >= dueAt) return;
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(look, afterMs);
    timer.unref();
  }

  function look() {
    timer = undefined;
    dueAt = Infinity;
    looking = true;
    round().then(
      (found) => {
        idleMs = found.worked
          ? options.pollMs
          : Math.min(idleMs * 2, Math.max(IDLE_POLL_MS, options.pollMs));
        next(found);
      },
      (error: unknown) => {
        options.failed(error);
        next({ worked: false, more: false, endpoints: true });
      },
    );
  }

  function next({ more, endpoints, againInMs }: Look) {
    looking = false;
    const now = lookAgain || more;
    lookAgain = false;
    if (now) wake(0);
    else if (endpoints) wake(Math.min(idleMs, againInMs ?? Infinity));
  }

  return {
    wake,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
