import type DataLoader from 'dataloader';
import { sql } from 'drizzle-orm';
import { loaderInTurns } from '../../../db/batch-turns.js';
import type { Database } from '../../../db/database.js';
import { runnerOf, statementOf } from '../../../db/runner.js';
import type { ClaimedDelivery, DeliveryStatus } from './deliveries.js';

const toDate = (value: unknown) => new Date(value as string | Date);

export interface AttemptOutcome {
  status: DeliveryStatus;
  /** For a pending one: when to try again. */
  retryInSeconds?: number;
  responseStatus: number | null;
  error: string | null;
}

// Only the holder of the current attempt records it: a worker whose lease ran out and was
// taken over records nothing (the attempt count tells them apart). An endpoint's
// `failing_since` follows its outcomes in the order given, and is written only when it changes:
// a healthy endpoint's row is not rewritten for each of its deliveries.
const recordStatement = statementOf(sql`
  with outcome as (
    select * from jsonb_to_recordset(${sql.placeholder('outcomes')}::jsonb) as o(
      ord int, id bigint, attempts int, status webhook_delivery_status, retry_in float8,
      response_status int, error text)
  ),
  recorded as (
    update webhook_deliveries d
    set status = o.status, lease_until = null,
      next_attempt_at = now() + make_interval(secs => o.retry_in),
      last_response_status = o.response_status, last_error = o.error
    from outcome o
    where d.id = o.id and d.attempts = o.attempts and d.status = 'pending'
    returning o.ord, d.endpoint_id, o.status = 'succeeded' as succeeded
  ),
  latest as (
    select endpoint_id, bool_or(succeeded) as any_succeeded,
      (array_agg(succeeded order by ord desc))[1] as last_succeeded
    from recorded group by endpoint_id
  ),
  changed as (
    update webhook_endpoints w
    set failing_since = now()
    from latest
    where w.id = latest.endpoint_id and not latest.last_succeeded
      and (latest.any_succeeded or w.failing_since is null)
    returning w.id, w.failing_since
  ),
  healed as (
    update webhook_endpoints w set failing_since = null
    from latest
    where w.id = latest.endpoint_id and latest.last_succeeded and w.failing_since is not null
    returning w.id
  )
  select recorded.ord, case
      when changed.id is not null then changed.failing_since
      when healed.id is not null or recorded.succeeded then null
      else w.failing_since end
  from recorded join webhook_endpoints w on w.id = recorded.endpoint_id
  left join changed on changed.id = recorded.endpoint_id
  left join healed on healed.id = recorded.endpoint_id`);

export interface AttemptRecord {
  delivery: Pick<ClaimedDelivery, 'id' | 'attempts'>;
  outcome: AttemptOutcome;
}

export interface RecordedAttempt {
  /** False when the lease was lost meanwhile: nothing was written. */
  recorded: boolean;
  /** Since when the delivery's endpoint has failed without a success, after these outcomes. */
  failingSince: Date | null;
}

/** Records attempts' outcomes in one statement, in the order given. */
export async function recordAttempts(
  db: Database,
  records: readonly AttemptRecord[],
): Promise<RecordedAttempt[]> {
  const outcomes = records.map(({ delivery, outcome }, ord) => ({
    ord,
    id: delivery.id,
    attempts: delivery.attempts,
    status: outcome.status,
    retry_in: outcome.retryInSeconds ?? 0,
    response_status: outcome.responseStatus,
    error: outcome.error,
  }));
  const rows = await runnerOf(db).rows(recordStatement, { outcomes: JSON.stringify(outcomes) });
  const answers = records.map((): RecordedAttempt => ({ recorded: false, failingSince: null }));
  for (const row of rows) {
    answers[Number(row[0])] = {
      recorded: true,
      failingSince: row[1] === null ? null : toDate(row[1]),
    };
  }
  return answers;
}

/**
 * Attempts finished while a record is being written wait and go together in the next
 * statement: one commit for them all rather than one each.
 */
const RECORDS_IN_FLIGHT = 1;
const MAX_RECORDS = 200;

const recorders = new WeakMap<Database, DataLoader<AttemptRecord, RecordedAttempt>>();

/** Records one attempt's outcome, grouped with the others finishing meanwhile. */
export function recordAttempt(
  db: Database,
  delivery: AttemptRecord['delivery'],
  outcome: AttemptOutcome,
): Promise<RecordedAttempt> {
  let recorder = recorders.get(db);
  if (!recorder) {
    recorder = loaderInTurns((records) => recordAttempts(db, records), {
      inFlight: RECORDS_IN_FLIGHT,
      maxBatchSize: MAX_RECORDS,
    });
    recorders.set(db, recorder);
  }
  return recorder.load({ delivery, outcome });
}
