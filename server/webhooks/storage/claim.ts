import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/database.js';
import { runnerFor, runnerOf, statementOf, type Queryable } from '../../../db/runner.js';
import { lastEventId, type EventType } from '../../../db/queries/events.js';
import { toDate, unflushedCommit, type ClaimedDelivery } from './deliveries.js';

/** At most this many deliveries of one endpoint are leased at once. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 10;
/** A failing endpoint (no success since its last failure) has one attempt in flight at a time. */
export const MAX_IN_FLIGHT_WHILE_FAILING = 1;

// One statement, each part an index probe: an idle worker's only statement.
const workStatement = statementOf(sql`
  select
    exists (select 1 from webhook_endpoints),
    exists (select 1 from webhook_endpoints
      where enabled and fanned_out_through < (select coalesce(max(id), 0) from events)),
    exists (select 1 from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now()
        and (lease_until is null or lease_until <= now()))`);

export interface WorkWaiting {
  /** Some endpoint exists, enabled or not. */
  endpoints: boolean;
  /** Some enabled endpoint's cursor is behind the log: it has events not yet attempted. */
  fresh: boolean;
  /** Some delivery is due for another attempt and not leased. */
  due: boolean;
}

/**
 * What work waits, in one statement: asked before a claim, so that an idle service runs this
 * alone, and never takes the log's barrier, which writers would wait on.
 */
export async function workWaiting(db: Database): Promise<WorkWaiting> {
  const [row] = await runnerOf(db).rows(workStatement);
  return { endpoints: row?.[0] === true, fresh: row?.[1] === true, due: row?.[2] === true };
}

// Per enabled endpoint with work and a free slot (only those rows are locked, SKIP LOCKED, so
// that one claim at a time moves an endpoint's cursor): its due retries first, then the events
// after its cursor, up to its free slots and, over the endpoints taken in a random order, the
// claim's `limit`. A first attempt's row is made already leased, and the cursor moves past it
// in the same statement, so every event at or below a cursor has its row. A cursor moves only
// as fast as its endpoint takes deliveries: a dead endpoint's backlog stays in the log.
const claimStatement = statementOf(sql`
  with open as (
    select id, free from (
      select w.id, case when w.failing_since is null then ${MAX_IN_FLIGHT_PER_ENDPOINT}::int
          else ${MAX_IN_FLIGHT_WHILE_FAILING}::int end - (
          select count(*) from webhook_deliveries l
          where l.endpoint_id = w.id and l.status = 'pending' and l.lease_until > now()
        ) as free
      from webhook_endpoints w
      where w.enabled and (w.fanned_out_through < ${sql.placeholder('settled')}::bigint
        or exists (select 1 from webhook_deliveries d
          where d.endpoint_id = w.id and d.status = 'pending' and d.next_attempt_at <= now()
            and (d.lease_until is null or d.lease_until <= now())))
    ) endpoint where free > 0
  ),
  locked as (
    select w.id, w.types, w.fanned_out_through, open.free
    from webhook_endpoints w join open on open.id = w.id
    for update of w skip locked
  ),
  unflushed as (select ${unflushedCommit}),
  budget as (
    select id, types, fanned_out_through, least(free, greatest(
      ${sql.placeholder('limit')}::int - (sum(free) over (order by random()) - free), 0)) as free
    from locked cross join unflushed
  ),
  retry as (
    select d.id, budget.id as endpoint_id from budget cross join lateral (
      select id from webhook_deliveries d
      where d.endpoint_id = budget.id and d.status = 'pending' and d.next_attempt_at <= now()
        and (d.lease_until is null or d.lease_until <= now())
      order by d.next_attempt_at, d.id limit budget.free
      for update skip locked
    ) d
  ),
  wanted as (
    select b.id, b.types, b.fanned_out_through,
      b.free - (select count(*) from retry where retry.endpoint_id = b.id) as want
    from budget b where b.fanned_out_through < ${sql.placeholder('settled')}::bigint
  ),
  fresh as (
    select wanted.id as endpoint_id, e.id as event_id from wanted cross join lateral (
      -- id + 0: a filter on the rows the key's index hands over in order. As a bound of the
      -- scan, the planner took the range for a few rows, read a backlog of thousands and
      -- sorted it, in every claim.
      select id from events
      where wanted.want > 0 and id > wanted.fanned_out_through
        and id + 0 <= ${sql.placeholder('settled')}::bigint
        and (wanted.types is null or type = any(wanted.types))
      order by id limit wanted.want
    ) e
  ),
  moved as (
    update webhook_endpoints w
    set fanned_out_through = case when taken.count < wanted.want
      then ${sql.placeholder('settled')}::bigint else taken.through end
    from wanted cross join lateral (
      select count(*) as count, max(event_id) as through from fresh
      where fresh.endpoint_id = wanted.id
    ) taken
    where w.id = wanted.id and wanted.want > 0
  ),
  inserted as (
    insert into webhook_deliveries (endpoint_id, event_id, attempts, lease_until, last_attempt_at)
    select endpoint_id, event_id, 1,
      now() + make_interval(secs => ${sql.placeholder('leaseSeconds')}::float8), now()
    from fresh
    on conflict (endpoint_id, event_id) do nothing
    returning id, endpoint_id, event_id, attempts
  ),
  leased as (
    update webhook_deliveries d
    set lease_until = now() + make_interval(secs => ${sql.placeholder('leaseSeconds')}::float8),
      attempts = d.attempts + 1, last_attempt_at = now()
    from retry where d.id = retry.id
    returning d.id, d.endpoint_id, d.event_id, d.attempts
  ),
  claimed as (select * from leased union all select * from inserted)
  select claimed.id, claimed.endpoint_id, claimed.event_id, claimed.attempts, e.type,
    e.occurred_at, e.data, w.url, w.secret,
    case when w.previous_secret_expires_at > now() then w.previous_secret end, w.failing_since
  from claimed cross join lateral (
    -- One probe of the key per claimed row (the limit keeps the subquery from being merged
    -- into a join): as a join, the planner read and hashed the whole log, 4.5 of a claim's
    -- 6.9 ms at 22,000 events, and more as the log grows.
    select type, occurred_at, data from events where id = claimed.event_id limit 1
  ) e
  join webhook_endpoints w on w.id = claimed.endpoint_id`);

export interface ClaimOptions {
  /** The most deliveries to lease, over every endpoint. */
  limit: number;
  leaseSeconds: number;
  /**
   * How far cursors may move: the last event id read past the log's barrier (settledEvents),
   * below which nothing can still commit. 0 takes retries only.
   */
  settled: number;
}

/** The last event id no commit can still precede: takes the log's barrier for one read. */
export const settledEvents = lastEventId;

/**
 * Leases at most `limit` deliveries for `leaseSeconds` (nobody else attempts them meanwhile):
 * due retries first, then first attempts of the events after each endpoint's cursor.
 */
export async function claimDeliveries(
  on: Queryable,
  options: ClaimOptions,
): Promise<ClaimedDelivery[]> {
  const rows = await runnerFor(on).rows(claimStatement, { ...options });
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
