/**
 * A reading taken after the call, shared by every call made in the same turn of the event
 * loop: it is sent from the turn's check phase, once the I/O callbacks that ended those calls'
 * reads have run. Under load many reads end in one turn, so the position each needs costs a
 * fraction of a statement.
 */
export function readingsAfter<T>(read: () => Promise<T>): () => Promise<T> {
  let next: Promise<T> | undefined;
  return () => {
    next ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        next = undefined;
        read().then(resolve, reject);
      });
    });
    return next;
  };
}
