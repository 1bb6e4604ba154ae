/** The header the service answers with, and reads see at least as far as (docs/replicas.md). */
export const POSITION_HEADER = 'petstore-position';

/**
 * The highest `Petstore-Position` a client has seen, sent with each of its calls: with read
 * replicas behind the service, a client then reads its own writes and never sees the store go
 * back in time, whichever instance or replica answers. One tracker may serve several clients
 * (a tRPC and a REST client of one page).
 */
export interface PositionTracker {
  /** The highest position seen so far; undefined before the first answer that carried one. */
  readonly latest: string | undefined;
  /** Keeps `position` if it is higher than the latest (positions compare as strings). */
  observe(position: string | null | undefined): void;
}

export function createPositionTracker(): PositionTracker {
  let latest: string | undefined;
  return {
    get latest() {
      return latest;
    },
    observe(position) {
      if (position && (latest === undefined || position > latest)) latest = position;
    },
  };
}

/**
 * The tracker every client uses unless given one: a page's tRPC and REST clients then share
 * what each has seen, so a pet created through one is read back through the other.
 */
export const sharedPositions: PositionTracker = createPositionTracker();
