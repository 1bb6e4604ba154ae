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

/** An attempt that ended, and how. */
export interface FinishedAttempt {
  delivery: Pick<ClaimedDelivery, 'id' | 'attempts'>;
  outcome: AttemptOutcome;
}

// Only the holder of the current attempt records it: a worker whose lease ran out and was
// taken over records nothing (the attempt count tells them apart). An endpoint's row is
// written only when `failing_since` changes, not for every success of a healthy endpoint; of
// its outcomes in one batch, the last one ended says whether it is failing.
const recordStatement = statementOf(sql`
  with finished as (
    select * from jsonb_to_recordset(${sql.placeholder('finished')}::text::jsonb)
      as f(n int, id bigint, attempts int, status webhook_delivery_status, "retryIn" float8,
        "responseStatus" int, error text)
  ),
  recorded as (
    update webhook_deliveries d
    set status = f.status, lease_until = null,
      next_attempt_at = now() + make_interval(secs => f."retryIn"),
      last_response_status = f."responseStatus", last_error = f.error
    from finished f
    where d.id = f.id and d.attempts = f.attempts and d.status = 'pending'
    returning f.n, d.endpoint_id, f.status = 'succeeded' as succeeded, ${unflushedCommit}
  ),
  latest as (
    select distinct on (endpoint_id) endpoint_id, succeeded
    from recorded order by endpoint_id, n desc
  ),
  changed as (
    update webhook_endpoints w
    set failing_since = case when latest.succeeded then null else now() end
    from latest
    where w.id = latest.endpoint_id and (w.failing_since is null) <> latest.succeeded
    returning w.id, w.failing_since
  )
  select recorded.n, case when latest.succeeded then null
    else coalesce(changed.failing_since, w.failing_since) end
  from recorded join latest using (endpoint_id)
  join webhook_endpoints w on w.id = recorded.endpoint_id
  left join changed on changed.id = recorded.endpoint_id`);

export interface RecordedAttempt {
  /** False when the lease was lost meanwhile: nothing was written. */
  recorded: boolean;
  /** Since when the delivery's endpoint has failed without a success. */
  failingSince: Date | null;
}

/**
 * Records attempts' outcomes in one statement, in the order they ended (on the database, or
 * in a transaction of it): one answer each, in the same order.
 */
export async function recordAttempts(
  on: Queryable,
  attempts: readonly FinishedAttempt[],
): Promise<RecordedAttempt[]> {
  const finished = attempts.map(({ delivery, outcome }, n) => ({
    n,
    id: delivery.id,
    attempts: delivery.attempts,
    status: outcome.status,
    retryIn: outcome.retryInSeconds ?? 0,
    responseStatus: outcome.responseStatus,
    error: outcome.error,
  }));
  const rows = await runnerFor(on).rows(recordStatement, { finished: JSON.stringify(finished) });
  const answers = attempts.map((): RecordedAttempt => ({ recorded: false, failingSince: null }));
  for (const [n, failingSince] of rows) {
    answers[n as number] = {
      recorded: true,
      failingSince: failingSince === null ? null : toDate(failingSince),
    };
  }
  return answers;
}
