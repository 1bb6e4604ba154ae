import { sql } from 'drizzle-orm';
import { runnerFor, statementOf, type Queryable } from '../../../db/runner.js';
import {
  toDate,
  unflushedCommit,
  type ClaimedDelivery,
  type DeliveryStatus,
} from './deliveries.js';

export interface AttemptOutcome {
  status: DeliveryStatus;
  /** For a pending one: when to try again. */
  retryInSeconds?: number;
  responseStatus: number | null;
  error: string | null;
}

// Only the holder of the current attempt records it: a worker whose lease ran out and was
// taken over records nothing (the attempt count tells them apart). The endpoint's row is
// written only when `failing_since` changes, not for every success of a healthy endpoint.
const recordStatement = statementOf(sql`
  with recorded as (
    update webhook_deliveries
    set status = ${sql.placeholder('status')}::webhook_delivery_status, lease_until = null,
      next_attempt_at = now() + make_interval(secs => ${sql.placeholder('retryIn')}::float8),
      last_response_status = ${sql.placeholder('responseStatus')}::int,
      last_error = ${sql.placeholder('error')}::text
    where id = ${sql.placeholder('id')} and attempts = ${sql.placeholder('attempts')}::int
      and status = 'pending'
    returning endpoint_id, ${unflushedCommit}
  ),
  changed as (
    update webhook_endpoints w
    set failing_since = case when ${sql.placeholder('succeeded')}::boolean then null else now() end
    from recorded
    where w.id = recorded.endpoint_id
      and (w.failing_since is null) <> ${sql.placeholder('succeeded')}::boolean
    returning w.failing_since
  )
  select case when ${sql.placeholder('succeeded')}::boolean then null
    else coalesce(changed.failing_since, w.failing_since) end
  from recorded join webhook_endpoints w on w.id = recorded.endpoint_id
  left join changed on true`);

export interface RecordedAttempt {
  /** False when the lease was lost meanwhile: nothing was written. */
  recorded: boolean;
  /** Since when the delivery's endpoint has failed without a success. */
  failingSince: Date | null;
}

/** Records an attempt's outcome (on the database, or in a transaction of it). */
export async function recordAttempt(
  on: Queryable,
  delivery: Pick<ClaimedDelivery, 'id' | 'attempts'>,
  outcome: AttemptOutcome,
): Promise<RecordedAttempt> {
  const [row] = await runnerFor(on).rows(recordStatement, {
    id: delivery.id,
    attempts: delivery.attempts,
    status: outcome.status,
    retryIn: outcome.retryInSeconds ?? 0,
    responseStatus: outcome.responseStatus,
    error: outcome.error,
    succeeded: outcome.status === 'succeeded',
  });
  return {
    recorded: row !== undefined,
    failingSince: row === undefined || row[0] === null ? null : toDate(row[0]),
  };
}
