import type { DatabaseHandle } from '../../db/client.js';
import {
  EVENTS_CHANNEL,
  eventsAfter,
  lastEventId,
  type EventRow,
} from '../../db/queries/events.js';
import type { Logger } from '../process/logger.js';
import { summarizeError } from '../process/error-summary.js';

/** Events read from the log at once, by the feed and by a subscriber catching up. */
export const EVENT_PAGE = 500;

/** What the feed hands a subscriber: every event after the subscriber's own position. */
export interface FeedSubscriber {
  /** Called with events in id order; each id greater than any before. */
  deliver(events: readonly EventRow[]): void;
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
  private readonly live = new Set<FeedSubscriber>();
  private started: Promise<void> | undefined;
  private listener: { unlisten(): Promise<void> } | undefined;
  private pumping = false;
  private again = false;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly logger: Logger,
  ) {}

  /** Starts listening (once) and resolves when the feed knows the log's head. */
  start(): Promise<void> {
    this.started ??= this.listen().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  private async listen(): Promise<void> {
    this.head = await lastEventId(this.database.db);
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
      const batch = await eventsAfter(this.database.db, this.head, EVENT_PAGE);
      const last = batch.at(-1);
      if (!last) return;
      this.head = last.id;
      for (const subscriber of this.live) subscriber.deliver(batch);
      if (batch.length < EVENT_PAGE) return;
    }
  }

  async stop(): Promise<void> {
    this.live.clear();
    await this.listener?.unlisten();
  }
}
