import { sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { runnerFor, runnerOf, statementOf, transaction, type Queryable } from '../runner.js';
import { eventRetention, events, type eventType } from '../schema.js';

export type EventType = (typeof eventType.enumValues)[number];

export interface NewEvent {
  type: EventType;
  /** The resource after the change, as the API shows it. */
  data: unknown;
}

export type EventRow = Pick<typeof events.$inferSelect, 'id' | 'type' | 'occurredAt' | 'data'>;

/** Notified after changes commit (server/domain/events/notifier.ts); feeds listen on it. */
export const EVENTS_CHANNEL = 'petstore_events';

/**
 * The same on every instance, and distinct from the other advisory locks. Writers hold it
 * shared from drawing their events' ids until they end; a reader takes it exclusively before it
 * reads (eventsAfter), which waits for every writer that drew ids to commit or roll back, and
 * makes writers that come after it draw theirs once it is done. So a reader never sees an id
 * while a smaller one can still commit, without writers waiting for each other's commits.
 */
export const EVENT_ORDER_LOCK = 7_246_110_845;

const appendStatement = statementOf(sql`
  with event_order as (select pg_advisory_xact_lock_shared(${EVENT_ORDER_LOCK})),
  input as (
    select e.event, e.ord from jsonb_array_elements(${sql.placeholder('events')}::text::jsonb)
      with ordinality as e(event, ord)
  )
  insert into events (type, data)
  select (input.event->>'type')::event_type, input.event->'data'
  from event_order, input order by input.ord`);

/** Appends events as the last statement of a transaction, under the shared lock above. */
export async function appendEvents(on: Queryable, newEvents: readonly NewEvent[]): Promise<void> {
  if (newEvents.length === 0) return;
  await runnerFor(on).rows(appendStatement, { events: JSON.stringify(newEvents) });
}

/** postgres.js hands timestamps over as text (drizzle's setting), PGlite as dates. */
export function toEvent(row: unknown[]): EventRow {
  return {
    id: Number(row[0]),
    type: row[1] as EventType,
    occurredAt: new Date(row[2] as string | Date),
    data: row[3],
  };
}

const barrier = statementOf(sql`select pg_advisory_xact_lock(${EVENT_ORDER_LOCK})`);
const pageStatement = statementOf(sql`
  select id, type, occurred_at, data from events
  where id > ${sql.placeholder('after')} order by id limit ${sql.placeholder('limit')}`);

/**
 * Events after `after`, in id order, at most `limit`: every one whose id is below the highest
 * returned has committed, so a reader that goes on after that id misses none (see the lock).
 */
export function eventsAfter(db: Database, after: number, limit: number): Promise<EventRow[]> {
  return transaction(db, async (tx) => {
    await tx.rows(barrier);
    // A statement of its own, so its snapshot is taken once the writers before it are done.
    return (await tx.rows(pageStatement, { after, limit })).map(toEvent);
  });
}

const settledStatement = statementOf(sql`
  select id, type, occurred_at, data from events
  where id > ${sql.placeholder('after')} and id <= ${sql.placeholder('upTo')}
  order by id limit ${sql.placeholder('limit')}`);

/**
 * Events after `after` up to `upTo`, an id some reader has already read past the barrier (so
 * nothing at or below it can still commit): no barrier needed, and so none of the writers'
 * time taken. How a stream behind its process's feed catches up.
 */
export async function settledEventsAfter(
  db: Database,
  after: number,
  upTo: number,
  limit: number,
): Promise<EventRow[]> {
  return (await runnerOf(db).rows(settledStatement, { after, upTo, limit })).map(toEvent);
}

const lastStatement = statementOf(sql`select settled_event_id(${EVENT_ORDER_LOCK})`);

/**
 * The highest event id there is, or 0: where a stream that does not resume starts. Read past
 * the same barrier as eventsAfter, so no smaller id can still commit; one statement, which
 * holds the barrier only inside the database (migration 0020).
 */
export async function lastEventId(db: Database): Promise<number> {
  const [row] = await runnerOf(db).rows(lastStatement);
  return Number(row?.[0] ?? 0);
}

const notifyStatement = statementOf(sql`select pg_notify(${EVENTS_CHANNEL}, '')`);

/** Wakes every process's event feed (they LISTEN on EVENTS_CHANNEL); sent after a commit. */
export async function notifyEventFeeds(db: Database): Promise<void> {
  await runnerOf(db).rows(notifyStatement);
}

/** The highest event id the retention purge has deleted (0 when none). */
export async function prunedThrough(db: Database): Promise<number> {
  const [row] = await db.select({ through: eventRetention.prunedThrough }).from(eventRetention);
  return row?.through ?? 0;
}

const pruneStatement = statementOf(sql`
  with oldest as (
    select id from events ev
    where occurred_at < now() - make_interval(secs => ${sql.placeholder('retentionSeconds')}::int)
      -- id + 0: a filter on the rows the occurred_at index hands over; on id itself, the
      -- planner combined both indexes into a bitmap and read every expired event per batch.
      and id + 0 <= (select coalesce(min(fanned_out_through), ${Number.MAX_SAFE_INTEGER})
        from webhook_endpoints where enabled)
      -- Asked per candidate, through webhook_deliveries_event_idx.
      and not (select exists (
        select 1 from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
        where d.event_id = ev.id and d.status = 'pending' and w.enabled))
    order by occurred_at limit ${sql.placeholder('batchSize')}::int
  ),
  deleted as (delete from events where id = any(array(select id from oldest)) returning id),
  recorded as (
    insert into event_retention (id, pruned_through)
    select 1, max(id) from deleted having count(*) > 0
    on conflict (id) do update
      set pruned_through = greatest(event_retention.pruned_through, excluded.pruned_through)
  )
  select count(*)::int from deleted`);

/**
 * Deletes at most `batchSize` events older than the retention, oldest first, and records the
 * highest id deleted, in one statement. An event an enabled webhook endpoint still needs is
 * kept: one not yet fanned out to it, or with a delivery to it still pending
 * (docs/webhooks.md); a disabled endpoint holds nothing back. Returns how many went. The batch is found through
 * events_occurred_at_idx in time order, so it reads only the rows it deletes: ordered by id
 * and filtered on time, it walked every kept event before finding there was nothing to do.
 * Ids and times agree but for transactions that overlapped, so an event a moment younger than
 * one deleted may outlive it: resuming from it is refused (410) a few seconds early, never late.
 * `= any(array(...))` makes the delete look its ids up in the primary key; `in (...)` let the
 * planner hash them and scan the whole table to delete them.
 */
export async function pruneEvents(
  db: Database,
  retentionSeconds: number,
  batchSize: number,
): Promise<number> {
  const [row] = await runnerOf(db).rows(pruneStatement, { retentionSeconds, batchSize });
  return Number(row?.[0] ?? 0);
}
