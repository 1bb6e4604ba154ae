import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/database.js';
import { runnerOf, statementOf } from '../../../db/runner.js';
import type { webhookDeliveryStatus } from './schema.js';
import type { EventType } from '../../../db/queries/events.js';

export type DeliveryStatus = (typeof webhookDeliveryStatus.enumValues)[number];

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

export const toDate = (value: unknown) => new Date(value as string | Date);

/**
 * Ends the statement's transaction without waiting for its commit to reach the disk. The
 * delivery worker's writes take it: a crash can lose only the last few, and what they recorded
 * is then done again, each delivery sent anew under its same `webhook-id` (at least once). A
 * commit that waited would be a disk flush the API's own commits queue behind.
 */
export const unflushedCommit = sql`set_config('synchronous_commit', 'off', true)`;

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

// An endpoint's queue: its deliveries still pending, and the events after its cursor that it
// is subscribed to, which have no row until their first attempt.
const depthStatement = statementOf(sql`
  select w.id,
    (select count(*) from webhook_deliveries d
      where d.endpoint_id = w.id and d.status = 'pending')
    + (select count(*) from events e
      where e.id > w.fanned_out_through and (w.types is null or e.type = any(w.types)))
  from webhook_endpoints w`);

/** Deliveries waiting per endpoint: pending ones and events not yet attempted. */
export async function queueDepths(db: Database): Promise<Map<string, number>> {
  const rows = await runnerOf(db).rows(depthStatement);
  return new Map(rows.map((row) => [row[0] as string, Number(row[1])]));
}
