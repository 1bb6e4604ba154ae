import type { DatabaseHandle } from '../../../db/client.js';
import type { DatabaseBudget } from '../../../db/deadline.js';
import type { EventType } from '../../../db/queries/events.js';
import type { ServiceMetrics } from '../../support/service-metrics.js';
import type { Logger } from '../../support/logger.js';
import {
  DomainError,
  GoneError,
  InvalidError,
  TooManyRequestsError,
  UnavailableError,
} from '../errors.js';
import { EventFeed } from './feed.js';
import { KeyRevokedError, KeyWatch } from './key-watch.js';
import { LogPosition } from './log-position.js';
import { StreamSlots } from './stream-slots.js';
import { Subscription } from './subscription.js';
import { StreamTickets } from './tickets.js';
import { summarizeError } from '../../support/error-summary.js';

export interface EventStreamsOptions {
  database: DatabaseHandle;
  logger: Logger;
  /** Streams one API key may hold open at once, REST and tRPC together. */
  perKeyLimit: number;
  /** Events queued for one stream at most; past it, the stream reads the log at its own pace. */
  maxQueued: number;
  /** How long a stream may stay behind the live events after its queue overflowed. */
  maxLagMs: number;
  /** How long a stream ticket stays valid. */
  ticketTtlSeconds?: number | undefined;
  metrics: Pick<ServiceMetrics, 'openStreams' | 'eventsDelivered' | 'streamsCutOff'>;
}

export interface StreamRequest {
  keyId: string;
  /** Resume after this id (Last-Event-ID, `after`, or tRPC's lastEventId). */
  after: number | undefined;
  types: readonly EventType[] | undefined;
  /** Called when the stream is cut off for falling behind: close the connection. */
  onCutOff: () => void;
}

/** How long a client refused for holding too many streams should wait before trying again. */
export const STREAM_RETRY_AFTER_SECONDS = 10;

/** The key already holds its most open streams: 429, with `Retry-After` on REST. */
export class TooManyStreamsError extends TooManyRequestsError {
  override name = 'TooManyStreamsError';
  constructor(keyId: string, limit: number) {
    super(
      `API key ${keyId} already holds ${limit} open event streams; close one, or retry after ${STREAM_RETRY_AFTER_SECONDS} s`,
    );
  }
}

/**
 * The server is shutting down: a stream is refused (503) or ended, and the client comes back
 * and resumes. tRPC's client retries this code by itself, after its EventSource reconnects.
 */
export class StreamsClosingError extends UnavailableError {
  override name = 'StreamsClosingError';
  constructor() {
    super('The server is shutting down; reconnect and resume from the last event id received');
  }
}

/**
 * A stream being opened, within the request's database budget. The budget answers 503 when the
 * database does not, but the opening goes on: a stalled database that answers later hands it a
 * slot and a live subscription that no one will ever read, held until the process ends (each
 * stream asked for during a stall took one of its key's slots for good). Such a late stream is
 * ended at once, which gives its slot back.
 */
export async function openWithin(
  budget: DatabaseBudget,
  open: () => Promise<Subscription>,
): Promise<Subscription> {
  let opening: Promise<Subscription> | undefined;
  try {
    return await budget.within(() => (opening = open()));
  } catch (error) {
    opening?.then(
      (late) => void late.return(),
      () => undefined,
    );
    throw error;
  }
}

/**
 * The event streams of one process: their shared feed, the per-key limit, and shutdown. The
 * limit is counted in the database across processes and instances (leased slots, which a
 * process that dies gives back when its leases expire).
 */
export class EventStreams {
  private readonly feed: EventFeed;
  private readonly keys: KeyWatch;
  private readonly open = new Set<Subscription>();
  private readonly slots: StreamSlots;
  private readonly log: LogPosition;
  /** The tickets that open a stream without an Authorization header (browsers' EventSource). */
  readonly tickets: StreamTickets;
  private closed = false;

  constructor(private readonly options: EventStreamsOptions) {
    this.feed = new EventFeed(options.database, options.logger);
    this.keys = new KeyWatch(options.database.db, options.logger);
    this.tickets = new StreamTickets(options.database.db, options.ticketTtlSeconds);
    this.log = new LogPosition(options.database.db);
    this.slots = new StreamSlots(options.database.db, options.perKeyLimit, (error) => {
      this.warnSlots(error);
    });
  }

  private warnSlots(error: unknown): void {
    this.options.logger.warn(
      { err: summarizeError(error, { stack: false }) },
      'could not give back or renew event stream slots',
    );
  }

  async subscribe(request: StreamRequest): Promise<Subscription> {
    this.refuseWhenClosed();
    const release = await this.takeSlot(request.keyId);
    let after: number;
    try {
      await this.feed.start();
      after = await this.startingPoint(request.after);
      // close() may have run meanwhile: a stream it did not see would hold shutdown open.
      this.refuseWhenClosed();
    } catch (error) {
      release();
      throw error;
    }
    const { metrics } = this.options;
    const subscription = new Subscription(
      this.feed,
      {
        after,
        types: request.types && new Set(request.types),
        maxQueued: this.options.maxQueued,
        maxLagMs: this.options.maxLagMs,
        onTaken: (count) => {
          metrics.eventsDelivered.inc(count);
        },
      },
      (reason) => {
        this.open.delete(subscription);
        metrics.openStreams.dec();
        unwatch();
        release();
        // A revoked key's stream ends as an answer (REST) or an error the client reads (tRPC);
        // only a stream cut off for not reading loses its connection.
        if (reason instanceof DomainError && !(reason instanceof KeyRevokedError)) {
          metrics.streamsCutOff.inc();
          request.onCutOff();
        }
      },
    );
    const unwatch = this.keys.add(request.keyId, subscription);
    this.open.add(subscription);
    metrics.openStreams.inc();
    return subscription;
  }

  /**
   * Where a stream starts: at the log's head now, read once when it opens (the feed's own head
   * may trail it by changes whose notification is still on its way, and a stream that started
   * there would receive changes committed before it was opened), or after the id it resumes
   * from, which retention must not have deleted yet.
   */
  private async startingPoint(after: number | undefined): Promise<number> {
    if (after === undefined) return this.log.head();
    const pruned = await this.log.prunedThrough();
    if (after < pruned) {
      throw new GoneError(
        `Events after ${after} are no longer kept (up to ${pruned} were deleted by retention); start a new stream without a last event id and read the current state again`,
      );
    }
    // An id beyond every event kept or deleted was never sent (a client of another database,
    // or of one restored from a backup): resuming there would silently skip every event up to it.
    const last = Math.max(await this.log.head(), pruned);
    if (after > last) {
      throw new InvalidError(
        `Event ${after} was never sent: the last event is ${last}; start a new stream without a last event id and read the current state again`,
      );
    }
    return after;
  }

  private refuseWhenClosed(): void {
    if (this.closed) throw new StreamsClosingError();
  }

  /** A slot of the key's limit, or 429; returns its release. */
  private async takeSlot(keyId: string): Promise<() => void> {
    const release = await this.slots.acquire(keyId);
    if (!release) throw new TooManyStreamsError(keyId, this.options.perKeyLimit);
    return release;
  }

  /**
   * Ends every stream and stops listening; streams asked for from now on are refused. REST
   * clients see a clean end of the body; tRPC clients a retryable error, so that they come back.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.keys.stop();
    for (const subscription of [...this.open]) subscription.end('shutdown');
    await this.feed.stop();
    await this.slots.close().catch((error: unknown) => {
      this.warnSlots(error);
    });
  }
}
