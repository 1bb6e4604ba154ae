import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/database.js';
import { runnerOf, statementOf, transaction } from '../../../db/runner.js';
import type { webhookDeliveryStatus } from './schema.js';
import { lastEventId, type EventType } from '../../../db/queries/events.js';

export type DeliveryStatus = (typeof webhookDeliveryStatus.enumValues)[number];

/** At most this many deliveries of one endpoint are leased at once. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 10;

// Each endpoint row is locked (SKIP LOCKED) by the one fan-out that advances its cursor, so two
// instances never fan out the same events to it twice; the unique index is the last word.
// Only events up to `settled` (lastEventId), none of which can still be preceded by a commit.
const fanOutStatement = statementOf(sql`
  with endpoint as (
    select id, fanned_out_through, types from webhook_endpoints
    where fanned_out_through < ${sql.placeholder('settled')}::bigint
    for update skip locked
  ),
  batch as (
    select endpoint.id as endpoint_id, endpoint.types, e.id as event_id, e.type
    from endpoint cross join lateral (
      select id, type from events
      where id > endpoint.fanned_out_through and id <= ${sql.placeholder('settled')}::bigint
      order by id limit ${sql.placeholder('limit')}::int
    ) e
  ),
  inserted as (
    insert into webhook_deliveries (endpoint_id, event_id)
    select endpoint_id, event_id from batch where types is null or type = any(types)
    on conflict (endpoint_id, event_id) do nothing
    returning 1
  ),
  moved as (
    update webhook_endpoints w set fanned_out_through = m.through
    from (select endpoint_id, max(event_id) as through from batch group by endpoint_id) m
    where w.id = m.endpoint_id
    returning 1
  )
  select (select count(*) from inserted)::int, (select count(*) from moved)::int`);

// One statement, each part an index probe: an idle worker's only statement.
const workStatement = statementOf(sql`
  select
    exists (select 1 from webhook_endpoints),
    exists (select 1 from webhook_endpoints
      where fanned_out_through < (select coalesce(max(id), 0) from events)),
    exists (select 1 from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now()
        and (lease_until is null or lease_until <= now()))`);

export interface WorkWaiting {
  /** Some endpoint exists, enabled or not. */
  endpoints: boolean;
  /** Some endpoint's cursor is behind the log: a fan-out has work. */
  fanOut: boolean;
  /** Some delivery is due and not leased: a claim has work. */
  due: boolean;
}

/**
 * What work waits, in one statement: asked before the fan-out and the claim, so that an idle
 * service runs this alone, and never takes the log's barrier, which writers would wait on.
 */
export async function workWaiting(db: Database): Promise<WorkWaiting> {
  const [row] = await runnerOf(db).rows(workStatement);
  return { endpoints: row?.[0] === true, fanOut: row?.[1] === true, due: row?.[2] === true };
}

/**
 * Makes the deliveries of the events after each endpoint's cursor, at most `limit` events per
 * endpoint, and advances the cursors. Only up to the last event read past the log's barrier
 * (lastEventId), so no event below one fanned out can still commit; the barrier is held for
 * that one read alone, never while the deliveries are written, so a commit waits no longer for
 * a hundred endpoints than for none. Returns how many deliveries were made.
 */
export async function fanOutEvents(db: Database, limit: number): Promise<number> {
  const settled = await lastEventId(db);
  return transaction(db, async (tx) => {
    const [row] = await tx.rows(fanOutStatement, { limit, settled });
    return Number(row?.[0] ?? 0);
  });
}

/** A leased delivery with what its attempt needs. */
export interface ClaimedDelivery {
  id: number;
  endpointId: string;
  eventId: number;
  attempts: number;
  type: EventType;
  occurredAt: Date;
  data: unknown;
  url: string;
  secrets: string[];
  failingSince: Date | null;
}

// The due deliveries of each enabled endpoint, each endpoint's taken from its own queue up to
// its free slots, so a slow endpoint's backlog never fills a claim; only those rows are locked
// (SKIP LOCKED), so another worker's claim can take the rest. Leased deliveries of other
// workers count against the slots; two workers claiming at the same instant may overshoot.
const claimStatement = statementOf(sql`
  with endpoint as (
    select w.id, ${MAX_IN_FLIGHT_PER_ENDPOINT} - (
      select count(*) from webhook_deliveries l
      where l.endpoint_id = w.id and l.status = 'pending' and l.lease_until > now()
    ) as free
    from webhook_endpoints w where w.enabled
  ),
  due as (
    select d.id from endpoint cross join lateral (
      select id from webhook_deliveries d
      where endpoint.free > 0
        and d.endpoint_id = endpoint.id and d.status = 'pending' and d.next_attempt_at <= now()
        and (d.lease_until is null or d.lease_until <= now())
      order by d.next_attempt_at, d.id limit endpoint.free
      for update skip locked
    ) d
  ),
  chosen as (select id from due limit ${sql.placeholder('limit')}::int),
  leased as (
    update webhook_deliveries d
    set lease_until = now() + make_interval(secs => ${sql.placeholder('leaseSeconds')}::float8),
      attempts = d.attempts + 1, last_attempt_at = now()
    from chosen where d.id = chosen.id
    returning d.id, d.endpoint_id, d.event_id, d.attempts
  )
  select leased.id, leased.endpoint_id, leased.event_id, leased.attempts, e.type, e.occurred_at,
    e.data, w.url, w.secret,
    case when w.previous_secret_expires_at > now() then w.previous_secret end, w.failing_since
  from leased join events e on e.id = leased.event_id join webhook_endpoints w on w.id = leased.endpoint_id`);

export const toDate = (value: unknown) => new Date(value as string | Date);

/** Leases at most `limit` due deliveries for `leaseSeconds`: nobody else attempts them meanwhile. */
export async function claimDueDeliveries(
  db: Database,
  limit: number,
  leaseSeconds: number,
): Promise<ClaimedDelivery[]> {
  const rows = await runnerOf(db).rows(claimStatement, { limit, leaseSeconds });
  return rows.map((row) => ({
    id: Number(row[0]),
    endpointId: row[1] as string,
    eventId: Number(row[2]),
    attempts: Number(row[3]),
    type: row[4] as EventType,
    occurredAt: toDate(row[5]),
    data: row[6],
    url: row[7] as string,
    secrets: [row[8] as string, ...(row[9] === null ? [] : [row[9] as string])],
    failingSince: row[10] === null ? null : toDate(row[10]),
  }));
}

const renewStatement = statementOf(sql`
  update webhook_deliveries d
  set lease_until = now() + make_interval(secs => ${sql.placeholder('leaseSeconds')}::float8)
  from unnest(${sql.placeholder('ids')}::bigint[], ${sql.placeholder('attempts')}::int[])
    as held(id, attempts)
  where d.id = held.id and d.attempts = held.attempts and d.status = 'pending'`);

/**
 * Extends the leases of the attempts a worker still runs, by `leaseSeconds` from now: leases
 * stay short (a dead worker's deliveries are taken over soon) however long an attempt may run.
 * An attempt taken over meanwhile (its count moved on) is left alone.
 */
export async function renewLeases(
  db: Database,
  held: readonly Pick<ClaimedDelivery, 'id' | 'attempts'>[],
  leaseSeconds: number,
): Promise<void> {
  if (held.length === 0) return;
  await runnerOf(db).rows(renewStatement, {
    ids: `{${held.map((delivery) => delivery.id).join(',')}}`,
    attempts: `{${held.map((delivery) => delivery.attempts).join(',')}}`,
    leaseSeconds,
  });
}

const depthStatement = statementOf(sql`
  select endpoint_id, count(*)::int from webhook_deliveries where status = 'pending'
  group by endpoint_id`);

/** Pending deliveries per endpoint. */
export async function queueDepths(db: Database): Promise<Map<string, number>> {
  const rows = await runnerOf(db).rows(depthStatement);
  return new Map(rows.map((row) => [row[0] as string, Number(row[1])]));
}
