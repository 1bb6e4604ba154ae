import { asc, gt, lt, sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { eventRetention, events, type eventType } from '../schema.js';

export type EventType = (typeof eventType.enumValues)[number];

export interface NewEvent {
  type: EventType;
  /** The resource after the change, as the API shows it. */
  data: unknown;
}

export type EventRow = Pick<typeof events.$inferSelect, 'id' | 'type' | 'occurredAt' | 'data'>;

/** Notified on commit of every transaction that appends events; the payload is the last id. */
export const EVENTS_CHANNEL = 'petstore_events';

/**
 * The same on every instance, and distinct from the other advisory locks. Held from an event's
 * insert until its transaction ends, so event ids become visible in ascending order.
 */
export const EVENT_ORDER_LOCK = 7_246_110_845;

/**
 * Appends events as the last statement of a transaction. The lock makes a later transaction's
 * events wait for this commit before drawing their ids, and the notification is sent by
 * PostgreSQL only if and when the transaction commits.
 */
export async function appendEvents(tx: Database, newEvents: readonly NewEvent[]): Promise<void> {
  if (newEvents.length === 0) return;
  await tx.execute(sql`
    with event_order as (select pg_advisory_xact_lock(${EVENT_ORDER_LOCK})),
    input as (
      select e.event, e.ord from jsonb_array_elements(${JSON.stringify(newEvents)}::jsonb)
        with ordinality as e(event, ord)
    ),
    appended as (
      insert into events (type, data)
      select (input.event->>'type')::event_type, input.event->'data'
      from event_order, input order by input.ord
      returning id
    )
    select pg_notify(${EVENTS_CHANNEL}, max(id)::text) from appended`);
}

const eventColumns = {
  id: events.id,
  type: events.type,
  occurredAt: events.occurredAt,
  data: events.data,
};

/** Events after `after`, in id order, at most `limit`. */
export function eventsAfter(db: Database, after: number, limit: number): Promise<EventRow[]> {
  return db
    .select(eventColumns)
    .from(events)
    .where(gt(events.id, after))
    .orderBy(asc(events.id))
    .limit(limit);
}

/** The highest event id there is, or 0: where a stream that does not resume starts. */
export async function lastEventId(db: Database): Promise<number> {
  const [row] = await db.select({ id: sql<string | null>`max(${events.id})` }).from(events);
  return Number(row?.id ?? 0);
}

/** The highest event id the retention purge has deleted (0 when none). */
export async function prunedThrough(db: Database): Promise<number> {
  const [row] = await db.select({ through: eventRetention.prunedThrough }).from(eventRetention);
  return row?.through ?? 0;
}

/**
 * Deletes at most `batchSize` events older than the retention, oldest first, and records the
 * highest id deleted, in one transaction. Returns how many went.
 */
export function pruneEvents(db: Database, retentionSeconds: number, batchSize: number) {
  return db.transaction(async (tx) => {
    const cutoff = sql`now() - make_interval(secs => ${retentionSeconds})`;
    const oldest = tx
      .select({ id: events.id })
      .from(events)
      .where(lt(events.occurredAt, cutoff))
      .orderBy(asc(events.id))
      .limit(batchSize);
    const deleted = await tx
      .delete(events)
      .where(sql`${events.id} in (${oldest})`)
      .returning({ id: events.id });
    const through = Math.max(0, ...deleted.map((row) => row.id));
    if (through > 0) {
      await tx
        .insert(eventRetention)
        .values({ prunedThrough: through })
        .onConflictDoUpdate({
          target: eventRetention.id,
          set: { prunedThrough: sql`greatest(${eventRetention.prunedThrough}, ${through})` },
        });
    }
    return deleted.length;
  });
}
