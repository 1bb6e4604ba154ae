import { sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { runnerOf, statementOf, transaction } from '../runner.js';

/** A class of its own in the two-key advisory lock space, for the acquires of one API key. */
const SLOT_LOCK_CLASS = 7_246;

const lockKey = statementOf(
  sql`select pg_advisory_xact_lock(${SLOT_LOCK_CLASS}, hashtext(${sql.placeholder('keyId')}::text))`,
);

/**
 * The lowest `count` slots below the limit that no live lease holds; an expired lease (its
 * holder died) is taken over in place. With `held` slots live, the lowest `held + count` slots
 * hold at least `count` free ones, so the search walks those, not the whole limit: an open
 * costs what the key's open streams count, not what it may hold.
 */
const takeStatement = statementOf(sql`
  with held as (
    select count(*)::int as live from stream_slots
    where key_id = ${sql.placeholder('keyId')}::text and expires_at > now())
  insert into stream_slots (key_id, slot, holder, expires_at)
  select ${sql.placeholder('keyId')}::text, s, ${sql.placeholder('holder')}::text,
    now() + make_interval(secs => ${sql.placeholder('ttlSeconds')}::int)
  from held, generate_series(
    0, least(${sql.placeholder('limit')}::int, held.live + ${sql.placeholder('count')}::int) - 1) as s
  where not exists (
    select 1 from stream_slots t
    where t.key_id = ${sql.placeholder('keyId')}::text and t.slot = s and t.expires_at > now())
  order by s limit ${sql.placeholder('count')}::int
  on conflict (key_id, slot) do update
    set holder = excluded.holder, expires_at = excluded.expires_at
  returning slot`);

export interface SlotRequest {
  keyId: string;
  limit: number;
  /** How many slots are asked for at once. */
  count: number;
  holder: string;
  ttlSeconds: number;
}

/**
 * Takes up to `count` free slots of `keyId` for `holder`: their numbers, fewer (or none) when
 * the rest are held. Asking for many in one statement costs about what asking for one does:
 * the search walks the key's held slots either way, plus the `count` asked for.
 */
export function takeStreamSlots(db: Database, request: SlotRequest): Promise<number[]> {
  // The key's lock makes acquires of one key take turns: two never pick the same free slot.
  return transaction(db, async (tx) => {
    await tx.rows(lockKey, { keyId: request.keyId });
    const rows = await tx.rows(takeStatement, { ...request });
    return rows.map((row) => Number(row[0]));
  });
}

export interface HeldSlot {
  keyId: string;
  slot: number;
}

const releaseStatement = statementOf(sql`
  delete from stream_slots t
  using jsonb_to_recordset(${sql.placeholder('slots')}::text::jsonb) as r("keyId" text, slot int)
  where t.key_id = r."keyId" and t.slot = r.slot
    and t.holder = ${sql.placeholder('holder')}::text`);

/** Gives back `slots` of `holder`, in one statement. */
export async function releaseStreamSlots(
  db: Database,
  holder: string,
  slots: readonly HeldSlot[],
): Promise<void> {
  await runnerOf(db).rows(releaseStatement, { holder, slots: JSON.stringify(slots) });
}

const renewStatement = statementOf(sql`
  update stream_slots set expires_at = now() + make_interval(secs => ${sql.placeholder('ttlSeconds')}::int)
  where holder = ${sql.placeholder('holder')}::text`);

/** Keeps every lease of `holder` alive for another `ttlSeconds`. */
export async function renewStreamSlots(
  db: Database,
  holder: string,
  ttlSeconds: number,
): Promise<void> {
  await runnerOf(db).rows(renewStatement, { holder, ttlSeconds });
}

const releaseAllStatement = statementOf(
  sql`delete from stream_slots where holder = ${sql.placeholder('holder')}::text`,
);

/** Gives back every slot `holder` holds (a process shutting down). */
export async function releaseAllStreamSlots(db: Database, holder: string): Promise<void> {
  await runnerOf(db).rows(releaseAllStatement, { holder });
}
