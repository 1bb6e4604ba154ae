import type { EventType } from '../../../db/queries/events.js';
import { TooManyRequestsError, type DomainError } from '../errors.js';
import type { EventBody } from '../schemas/event.js';
import {
  EVENT_PAGE,
  RECENT_EVENTS,
  type EventFeed,
  type FeedEvent,
  type FeedSubscriber,
} from './feed.js';

export interface SubscriptionOptions {
  /** Every event after this id (the log's head when the stream opened, unless it resumes). */
  after: number;
  /** Only these types; every type when undefined. */
  types: ReadonlySet<EventType> | undefined;
  /**
   * Events queued for a consumer at most; past it, the stream reads the log at its own pace. A
   * consumer that took the queue to write (nextRuns) may hold as many again until it writes.
   */
  maxQueued: number;
  /** How long a consumer whose queue overflowed may stay behind the live events. */
  maxLagMs: number;
  /** Told how many events the consumer took (metrics). */
  onTaken: (count: number) => void;
}

/**
 * Events in id order, queued for a stream: a feed batch itself when the stream wants all of it
 * (shared by every such stream, so that a batch costs each of them a reference, not a copy),
 * else the stream's own selection. Never changed once queued.
 */
export type EventRun = readonly FeedEvent[];

/**
 * Why a stream ends: its consumer closed it, the server is shutting down (the client should
 * come back and resume), or an error for the consumer (cut off for not reading).
 */
export type EndReason = 'closed' | 'shutdown' | DomainError;

/**
 * One stream's view of the event log, as an async iterator of events in id order, each once.
 * Live, it takes what the feed hands out, without querying. Behind (resuming, or when a burst
 * fills its queue) it leaves the feed and reads the log itself a page at a time, only as fast
 * as its consumer takes them, then joins the feed again once it has caught up: a slow consumer
 * falls behind but never loses an event or grows the heap, reading from the feed's memory of
 * recent events. A consumer still behind `maxLagMs` after its queue overflowed, or further
 * behind than the feed's memory reaches, reads slower than the store changes, or not at all
 * (the kernel's socket buffers hide which): it is cut off, and resumes from its last id.
 */
export class Subscription implements FeedSubscriber, AsyncIterableIterator<EventBody> {
  private cursor: number;
  private catchingUp = true;
  private readonly runs: EventRun[] = [];
  /** Events of `runs[0]` already returned by next(). */
  private offset = 0;
  /** Events queued in `runs`, less `offset`. */
  private queued = 0;
  private wake: (() => void) | undefined;
  private ended: EndReason | undefined;
  private lagTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: EventFeed,
    private readonly options: SubscriptionOptions,
    private readonly onEnd: (reason: EndReason) => void,
  ) {
    this.cursor = options.after;
    if (options.after >= feed.head) this.joinFeed();
  }

  deliver(events: readonly FeedEvent[]): void {
    const first = events[0];
    const last = events.at(-1);
    if (!first || !last || this.ended) return;
    if (
      !this.options.types &&
      first.id > this.cursor &&
      this.queued + events.length <= this.options.maxQueued
    ) {
      this.queue(events);
      this.cursor = last.id;
    } else {
      this.queue(this.select(events));
    }
    this.wake?.();
  }

  /**
   * The events after the cursor that the stream wants, as far as the queue has room; a wanted
   * event that finds the queue full makes the stream fall behind (it is left unread).
   */
  private select(events: readonly FeedEvent[]): FeedEvent[] {
    const selected: FeedEvent[] = [];
    for (const row of events) {
      if (row.id <= this.cursor) continue;
      const wanted = !this.options.types || this.options.types.has(row.type);
      if (wanted && this.queued + selected.length >= this.options.maxQueued) {
        this.fallBehind();
        break;
      }
      this.cursor = row.id;
      if (wanted) selected.push(row);
    }
    return selected;
  }

  private queue(run: EventRun): void {
    if (run.length === 0 || this.ended) return;
    this.runs.push(run);
    this.queued += run.length;
  }

  private joinFeed(): void {
    this.catchingUp = false;
    clearTimeout(this.lagTimer);
    this.lagTimer = undefined;
    this.feed.join(this);
  }

  private fallBehind(): void {
    if (this.catchingUp) return;
    this.catchingUp = true;
    this.feed.leave(this);
    const { maxLagMs } = this.options;
    this.lagTimer = setTimeout(() => {
      this.cutOff(`stayed behind for ${Math.round(maxLagMs / 1000)} s`);
    }, maxLagMs);
    this.lagTimer.unref();
  }

  private cutOff(why: string): void {
    this.end(
      new TooManyRequestsError(
        `The stream ${why} and was closed; resume from the last event id received`,
      ),
    );
  }

  private async catchUp(): Promise<void> {
    // A live stream that fell out of the feed's memory would read the log alone, and a thousand
    // such readers would starve the writers: it is cut off, and resumes like a new stream.
    if (this.lagTimer && !this.feed.holds(this.cursor)) {
      this.cutOff(`fell more than ${RECENT_EVENTS} events behind`);
      return;
    }
    const limit = Math.min(EVENT_PAGE, this.options.maxQueued);
    const page = await this.feed.eventsAfter(this.cursor, limit);
    this.queue(this.select(page.events));
    this.cursor = Math.max(this.cursor, page.through);
    if (this.cursor >= this.feed.head && !this.ended) this.joinFeed();
  }

  /** Waits for queued events: false once the stream ended cleanly, the error if it did not. */
  private async waitForEvents(): Promise<boolean> {
    for (;;) {
      if (this.queued > 0) return true;
      if (this.ended === 'closed' || this.ended === 'shutdown') return false;
      if (this.ended) throw this.ended;
      if (this.catchingUp) await this.catchUp();
      else await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  async next(): Promise<IteratorResult<EventBody, undefined>> {
    if (!(await this.waitForEvents())) return { value: undefined, done: true };
    const run = this.runs[0];
    const event = run?.[this.offset];
    if (!run || !event) throw new Error('queued events are missing');
    this.queued--;
    this.options.onTaken(1);
    if (++this.offset === run.length) {
      this.runs.shift();
      this.offset = 0;
    }
    return { value: event.body, done: false };
  }

  /**
   * Every queued event at once, as the runs they were queued in, once there are some;
   * undefined once the stream ended cleanly. A consumer that writes a shared run as one chunk
   * built once pays one socket write per feed batch, however many streams there are.
   */
  async nextRuns(): Promise<EventRun[] | undefined> {
    if (!(await this.waitForEvents())) return undefined;
    const runs = this.runs.splice(0);
    const [first] = runs;
    if (first && this.offset > 0) runs[0] = first.slice(this.offset);
    this.offset = 0;
    this.options.onTaken(this.queued);
    this.queued = 0;
    return runs;
  }

  /** Ends the stream: iteration ends at once, with the error when there is one. */
  end(reason: EndReason = 'closed'): void {
    if (this.ended) return;
    this.ended = reason;
    this.runs.length = 0;
    this.queued = 0;
    this.offset = 0;
    clearTimeout(this.lagTimer);
    this.feed.leave(this);
    this.onEnd(reason);
    this.wake?.();
  }

  /** True once the stream ended because the server is shutting down. */
  get endedByShutdown(): boolean {
    return this.ended === 'shutdown';
  }

  return(): Promise<IteratorResult<EventBody, undefined>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
