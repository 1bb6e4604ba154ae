import { TRPCError } from '@trpc/server';
import type { EventType } from '../../db/queries/events.js';
import {
  EVENT_PAGE,
  RECENT_EVENTS,
  type EventBody,
  type EventFeed,
  type FeedEvent,
  type FeedSubscriber,
} from './feed.js';

export interface SubscriptionOptions {
  /** Every event after this id (the log's head when the stream opened, unless it resumes). */
  after: number;
  /** Only these types; every type when undefined. */
  types: ReadonlySet<EventType> | undefined;
  /** Events held for a consumer at most; past it, the stream reads the log at its own pace. */
  maxQueued: number;
  /** How long a consumer whose queue overflowed may stay behind the live events. */
  maxLagMs: number;
}

/**
 * Why a stream ends: its consumer closed it, the server is shutting down (the client should
 * come back and resume), or an error for the consumer (cut off for not reading).
 */
export type EndReason = 'closed' | 'shutdown' | TRPCError;

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
  private readonly queue: EventBody[] = [];
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
    for (const row of events) if (!this.take(row)) break;
    this.wake?.();
  }

  /** Queues the event unless the queue is full; false when it is (the event is left unread). */
  private take(row: FeedEvent): boolean {
    if (row.id <= this.cursor || this.ended) return true;
    const wanted = !this.options.types || this.options.types.has(row.type);
    if (wanted && this.queue.length >= this.options.maxQueued) {
      this.fallBehind();
      return false;
    }
    this.cursor = row.id;
    if (wanted) this.queue.push(row.body);
    return true;
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
      new TRPCError({
        code: 'TOO_MANY_REQUESTS',
        message: `The stream ${why} and was closed; resume from the last event id received`,
      }),
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
    for (const row of page.events) this.take(row);
    this.cursor = Math.max(this.cursor, page.through);
    if (this.cursor >= this.feed.head && !this.ended) this.joinFeed();
  }

  async next(): Promise<IteratorResult<EventBody, undefined>> {
    for (;;) {
      const event = this.queue.shift();
      if (event) return { value: event, done: false };
      if (this.ended === 'closed' || this.ended === 'shutdown')
        return { value: undefined, done: true };
      if (this.ended) throw this.ended;
      if (this.catchingUp) await this.catchUp();
      else await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /**
   * The events queued behind the one next() returned, taken at once: a consumer that writes
   * them together pays one socket write for a burst, not one per event.
   */
  takeQueued(max: number): EventBody[] {
    return this.queue.splice(0, max);
  }

  /** Ends the stream: iteration ends at once, with the error when there is one. */
  end(reason: EndReason = 'closed'): void {
    if (this.ended) return;
    this.ended = reason;
    this.queue.length = 0;
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
