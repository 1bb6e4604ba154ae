interface Batch<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

function batch<T>(): Batch<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((onValue, onError) => {
    resolve = onValue;
    reject = onError;
  });
  return { promise, resolve, reject };
}

/**
 * A reading taken after the call, shared by every call that waits for the same one: at most
 * one reading is in flight, and the calls made meanwhile share the next, sent when it ends (or
 * from the turn's check phase when none was in flight). So each reading is sent after the
 * calls it answers were made, and under load one reading answers the reads of a whole round
 * trip: the position each read needs costs a fraction of a statement.
 */
export function readingsAfter<T>(read: () => Promise<T>): () => Promise<T> {
  let waiting: Batch<T> | undefined;
  let busy = false;
  const sendNext = () => {
    const current = waiting;
    waiting = undefined;
    if (!current) {
      busy = false;
      return;
    }
    read().then(current.resolve, current.reject).finally(sendNext);
  };
  return () => {
    if (!waiting) {
      waiting = batch();
      if (!busy) {
        busy = true;
        setImmediate(sendNext);
      }
    }
    return waiting.promise;
  };
}
