import type { DatabaseHandle } from '../../../db/client.js';
import {
  EVENTS_CHANNEL,
  eventsAfter,
  lastEventId,
  settledEventsAfter,
  type EventRow,
  type EventType,
} from '../../../db/queries/events.js';
import type { Logger } from '../../support/logger.js';
import type { EventBody } from '../schemas/event.js';
import { summarizeError } from '../../support/error-summary.js';

/** Events read from the log at once, by the feed and by a subscriber catching up. */
export const EVENT_PAGE = 500;
/**
 * The feed reads the log at most this often: changes that commit meanwhile reach every stream
 * in one batch, so a busy store costs each stream a write per interval, not one per change.
 */
const MIN_READ_INTERVAL_MS = 20;
/**
 * The latest events the feed keeps for subscribers that fell behind, shared by all of them: a
 * few MB at most. A live stream that falls further behind than this is cut off.
 */
export const RECENT_EVENTS = 5_000;

/** An event as the feed hands it out: its body built once, shared by every stream. */
export interface FeedEvent {
  id: number;
  type: EventType;
  body: EventBody;
}

export const toFeedEvent = (row: EventRow): FeedEvent => ({
  id: row.id,
  type: row.type,
  body: {
    id: String(row.id),
    type: row.type,
    occurredAt: row.occurredAt.toISOString(),
    // The log holds only what the body builders wrote (lifecycle/bodies.ts, and pet.created's
    // SQL in db/queries/pets.ts); the HTTP tests check every event streamed against the schema.
    data: row.data as EventBody['data'],
  },
});

/** The batches feeds have handed out: streams that want a whole batch share it as it is. */
const batches = new WeakSet<readonly FeedEvent[]>();

/** True for a batch as a feed handed it out, which every live unfiltered stream holds too. */
export const isFeedBatch = (events: readonly FeedEvent[]): boolean => batches.has(events);

export interface CatchUpPage {
  events: readonly FeedEvent[];
  /** Every event up to this id is in `events` or before them. */
  through: number;
}

/** What the feed hands a subscriber: every event after the subscriber's own position. */
export interface FeedSubscriber {
  /** Called with events in id order; each id greater than any before. */
  deliver(events: readonly FeedEvent[]): void;
}

/**
 * The process's one reader of the event log. It listens for the notification each committing
 * change sends, then reads every event after the last one it handed out and hands them to the
 * subscribers that are caught up. Subscribers never query the log while they are live, so an
 * idle stream costs nothing; a missed notification (the listener reconnecting) only delays,
 * since the next read starts from the last id handed out. Started on the first subscriber.
 */
export class EventFeed {
  /** The last event id handed to live subscribers; subscribers at it are live. */
  head = 0;
  /** The latest events, in id order: every event after `recentFloor` up to `head`. */
  private recent: FeedEvent[] = [];
  private recentFloor = 0;
  private readonly live = new Set<FeedSubscriber>();
  private started: Promise<void> | undefined;
  private listener: { unlisten(): Promise<void> } | undefined;
  private pumping = false;
  private again = false;
  private lastRead = -Infinity;
  private nextRead: NodeJS.Timeout | undefined;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly logger: Logger,
  ) {}

  /** Starts listening (once) and resolves when the feed knows the log's head. */
  start(): Promise<void> {
    // The feed serves every stream: its reads run on the database, no request's runner.
    this.started ??= this.listen().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  private async listen(): Promise<void> {
    this.head = await lastEventId(this.database.db);
    this.recentFloor = this.head;
    this.listener = await this.database.listen(
      EVENTS_CHANNEL,
      () => {
        this.pump();
      },
      () => {
        this.pump();
      },
    );
  }

  /** A subscriber at `head` from now on gets every later event. */
  join(subscriber: FeedSubscriber): void {
    this.live.add(subscriber);
  }

  leave(subscriber: FeedSubscriber): void {
    this.live.delete(subscriber);
  }

  /** Reads what was appended since the head; a wake-up during a read reads again after it. */
  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    const wait = this.lastRead + MIN_READ_INTERVAL_MS - performance.now();
    if (wait > 0) {
      this.nextRead ??= setTimeout(() => {
        this.nextRead = undefined;
        this.pump();
      }, wait);
      return;
    }
    this.lastRead = performance.now();
    this.pumping = true;
    this.drain()
      .catch((error: unknown) => {
        this.logger.warn(
          { err: summarizeError(error, { stack: false }) },
          'could not read the event log; retrying on the next change',
        );
      })
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.pump();
        }
      });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const batch = (await eventsAfter(this.database.db, this.head, EVENT_PAGE)).map(toFeedEvent);
      const last = batch.at(-1);
      if (!last) return;
      this.head = last.id;
      batches.add(batch);
      this.remember(batch);
      for (const subscriber of this.live) subscriber.deliver(batch);
      if (batch.length < EVENT_PAGE) return;
    }
  }

  private remember(batch: readonly FeedEvent[]): void {
    this.recent.push(...batch);
    // Trimmed in halves, so that the copy is paid once per RECENT_EVENTS events.
    if (this.recent.length < 2 * RECENT_EVENTS) return;
    const dropped = this.recent.splice(0, this.recent.length - RECENT_EVENTS);
    this.recentFloor = dropped.at(-1)?.id ?? this.recentFloor;
  }

  /** True while the feed still holds every event after `after` in memory. */
  holds(after: number): boolean {
    return after >= this.recentFloor;
  }

  /**
   * Up to `limit` events after `after`, for a subscriber that is behind, and the id it has then
   * seen everything up to: from memory while the feed still holds them, else from the log, where
   * every id up to the head has settled (the feed read past the barrier to reach it).
   */
  async eventsAfter(after: number, limit: number): Promise<CatchUpPage> {
    const upTo = this.head;
    let events: readonly FeedEvent[];
    if (this.holds(after)) {
      const start = firstAfter(this.recent, after);
      events = this.recent.slice(start, start + limit);
    } else {
      events = (await settledEventsAfter(this.database.db, after, upTo, limit)).map(toFeedEvent);
    }
    return { events, through: events.length < limit ? upTo : (events.at(-1)?.id ?? upTo) };
  }

  async stop(): Promise<void> {
    clearTimeout(this.nextRead);
    this.live.clear();
    await this.listener?.unlisten();
  }
}

/** The index of the first event whose id is greater than `after` (a binary search). */
function firstAfter(events: readonly FeedEvent[], after: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((events[middle]?.id ?? Infinity) <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
