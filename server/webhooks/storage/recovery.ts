import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../../../db/database.js';
import { runnerOf, statementOf } from '../../../db/runner.js';
import { webhookDeliveries } from './schema.js';
import { events } from '../../../db/schema.js';
import type { EventType } from '../../../db/queries/events.js';
import type { DeliveryStatus } from './deliveries.js';

export interface DeliveryRow {
  id: number;
  eventId: number;
  type: EventType;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date;
  lastResponseStatus: number | null;
  lastError: string | null;
}

/** An endpoint's deliveries newest first, keyset paged, of one status or all. */
export function deliveryPage(
  db: Database,
  endpointId: string,
  {
    status,
    before,
    limit,
  }: { status?: DeliveryStatus | undefined; before?: number; limit: number },
): Promise<DeliveryRow[]> {
  const d = webhookDeliveries;
  return db
    .select({
      id: d.id,
      eventId: d.eventId,
      type: events.type,
      status: d.status,
      attempts: d.attempts,
      lastAttemptAt: d.lastAttemptAt,
      nextAttemptAt: d.nextAttemptAt,
      lastResponseStatus: d.lastResponseStatus,
      lastError: d.lastError,
    })
    .from(d)
    .innerJoin(events, eq(events.id, d.eventId))
    .where(
      and(
        eq(d.endpointId, endpointId),
        status === undefined ? undefined : eq(d.status, status),
        before === undefined ? undefined : lt(d.id, before),
      ),
    )
    .orderBy(desc(d.id))
    .limit(limit);
}

/**
 * Makes a delivery due now again, whatever its status; false when it is not the endpoint's. Its
 * attempts keep counting: a retry is one more attempt, and one that fails past the schedule
 * gives the delivery up again.
 */
export async function retryDelivery(
  db: Database,
  endpointId: string,
  deliveryId: number,
): Promise<boolean> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ status: 'pending', nextAttemptAt: sql`now()` })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId)))
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

// Up to the endpoint's cursor: the fan-out makes the deliveries of the events after it. Never
// an event from before the endpoint existed, which it was never subscribed to.
const replayStatement = statementOf(sql`
  insert into webhook_deliveries (endpoint_id, event_id)
  select w.id, e.id from webhook_endpoints w join events e
    on e.id > ${sql.placeholder('after')} and e.id <= w.fanned_out_through
      and e.occurred_at >= w.created_at
  where w.id = ${sql.placeholder('endpointId')}::text and (w.types is null or e.type = any(w.types))
  on conflict (endpoint_id, event_id) do update
    set status = 'pending', next_attempt_at = now(), lease_until = null
  returning 1`);

/** Makes every kept event after `after` due again for the endpoint; returns how many. */
export async function replayDeliveries(
  db: Database,
  endpointId: string,
  after: number,
): Promise<number> {
  return (await runnerOf(db).rows(replayStatement, { endpointId, after })).length;
}
