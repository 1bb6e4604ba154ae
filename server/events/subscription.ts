import { TRPCError } from '@trpc/server';
import type { Database } from '../../db/database.js';
import { eventsAfter, type EventRow, type EventType } from '../../db/queries/events.js';
import { EVENT_PAGE, type EventFeed, type FeedSubscriber } from './feed.js';

/** An event as streams send it; `id` is a decimal string. */
export interface EventBody {
  id: string;
  type: EventType;
  occurredAt: string;
  data: unknown;
}

export interface SubscriptionOptions {
  /** Every event after this id (the log's head when the stream opened, unless it resumes). */
  after: number;
  /** Only these types; every type when undefined. */
  types: ReadonlySet<EventType> | undefined;
  /** Events held for a consumer that does not take them, before it is cut off. */
  maxQueued: number;
}

/**
 * Why a stream ends: its consumer closed it, the server is shutting down (the client should
 * come back and resume), or an error for the consumer (cut off for falling behind).
 */
export type EndReason = 'closed' | 'shutdown' | TRPCError;

const toBody = (row: EventRow): EventBody => ({
  id: String(row.id),
  type: row.type,
  occurredAt: row.occurredAt.toISOString(),
  data: row.data,
});

/**
 * One stream's view of the event log, as an async iterator of events in id order, each once.
 * Resuming, it reads the log itself one page at a time, only as fast as its consumer takes
 * them; once it has read up to the feed's head it joins the feed and waits for live events
 * without querying. A consumer that falls `maxQueued` events behind is cut off, so a client
 * that stops reading cannot grow the heap.
 */
export class Subscription implements FeedSubscriber, AsyncIterableIterator<EventBody> {
  private cursor: number;
  private catchingUp: boolean;
  private readonly queue: EventBody[] = [];
  private wake: (() => void) | undefined;
  private ended: EndReason | undefined;

  constructor(
    private readonly feed: EventFeed,
    private readonly db: Database,
    private readonly options: SubscriptionOptions,
    private readonly onEnd: (reason: EndReason) => void,
  ) {
    this.cursor = options.after;
    this.catchingUp = options.after < feed.head;
    if (!this.catchingUp) feed.join(this);
  }

  deliver(events: readonly EventRow[]): void {
    for (const row of events) this.take(row);
    this.wake?.();
  }

  private take(row: EventRow): void {
    if (row.id <= this.cursor || this.ended) return;
    this.cursor = row.id;
    if (this.options.types && !this.options.types.has(row.type)) return;
    if (this.queue.length >= this.options.maxQueued) {
      this.end(
        new TRPCError({
          code: 'TOO_MANY_REQUESTS',
          message: `The stream fell more than ${this.options.maxQueued} events behind and was closed; resume from the last event id received`,
        }),
      );
      return;
    }
    this.queue.push(toBody(row));
  }

  private async catchUp(): Promise<void> {
    const page = await eventsAfter(this.db, this.cursor, EVENT_PAGE);
    for (const row of page) this.take(row);
    if (page.length < EVENT_PAGE && this.cursor >= this.feed.head && !this.ended) {
      this.catchingUp = false;
      this.feed.join(this);
    }
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
   * Ends the stream. An error is thrown to the consumer once the queue is drained; otherwise
   * iteration ends at once (after a shutdown the client resumes from the last id it has).
   */
  end(reason: EndReason = 'closed'): void {
    if (this.ended) return;
    this.ended = reason;
    if (!(reason instanceof TRPCError)) this.queue.length = 0;
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
