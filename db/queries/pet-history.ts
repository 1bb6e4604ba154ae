import { sql } from 'drizzle-orm';
import { runnerFor, statementOf, type Queryable } from '../runner.js';
import { PET_EVENT_TYPE_LIST } from '../schema.js';
import { toEvent, type EventRow } from './events.js';

/** Served by events_pet_history_idx alone: the same expression and condition. */
export const historyStatement = statementOf(
  sql`
  select id, type, occurred_at, data from events
  where type in (${PET_EVENT_TYPE_LIST})
    and (data->>'id')::bigint = ${sql.placeholder('petId')}
    and id < ${sql.placeholder('before')}
  order by id desc limit ${sql.placeholder('limit')}`,
  { quickRead: true },
);

/** Whether a pet with this id was ever created: a deleted pet's row stays. */
const everExistedStatement = statementOf(
  sql`select 1 from pets where id = ${sql.placeholder('petId')}`,
  { quickRead: true },
);

/**
 * A pet's kept events, newest first: at most `limit` with an id below `before` (every event
 * when it is undefined).
 */
export async function petHistory(
  on: Queryable,
  petId: number,
  { before, limit }: { before: number | undefined; limit: number },
): Promise<EventRow[]> {
  const rows = await runnerFor(on).rows(historyStatement, {
    petId,
    before: before ?? Number.MAX_SAFE_INTEGER,
    limit,
  });
  return rows.map(toEvent);
}

export async function petEverExisted(on: Queryable, petId: number): Promise<boolean> {
  return (await runnerFor(on).rows(everExistedStatement, { petId })).length > 0;
}
